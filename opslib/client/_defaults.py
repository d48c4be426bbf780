"""What a new HTTP client starts with: httpx's transport through the environment's proxy
(in a few connection pools), finite timeouts, httpx's SSL context made once a process, and
opslib's User-Agent (:class:`opslib.client._http.HTTP`)."""

from __future__ import annotations

import functools
import os
import ssl
import urllib.request
from importlib import metadata

import httpx

from opslib.client import _constants as C

__all__ = [
    "default_ssl_context",
    "default_timeout",
    "default_transports",
    "env_proxy",
    "user_agent",
]


def default_transports(base_url: str, limits: httpx.Limits) -> list[httpx.HTTPTransport]:
    """httpx's own transports to ``base_url``, with httpx's default SSL context (to an
    ``https`` platform; :func:`_no_tls_context` to a plain HTTP one) and through
    the proxy the environment names for it (:func:`env_proxy`), as ``httpx.Client`` picks
    one: a pool of one connection for each connection ``limits`` allows (one pool when it
    sets no bound; :class:`opslib.client._http.Pools` gives each request to one). httpcore's
    pool looks at every connection it holds (an idle one with a ``poll`` call) as a request
    starts and as an answer ends: a pool of one looks at one (docs/performance.md)."""
    n = limits.max_connections or 1
    each = (
        limits
        if n == 1
        else httpx.Limits(max_connections=1, keepalive_expiry=limits.keepalive_expiry)
    )
    proxy = env_proxy(base_url)
    tls = httpx.URL(base_url).scheme == "https"
    context = default_ssl_context() if tls else _no_tls_context()
    return [httpx.HTTPTransport(verify=context, limits=each, proxy=proxy) for _ in range(n)]


def env_proxy(base_url: str) -> str | None:
    """The proxy the environment names for ``base_url``: ``HTTPS_PROXY`` or ``HTTP_PROXY`` by
    its scheme, else ``ALL_PROXY``; None where ``NO_PROXY`` covers its host (or none is set).
    Read by the standard library's rules (``urllib.request.getproxies``, ``proxy_bypass``),
    as requests reads them.
    """
    url = httpx.URL(base_url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(url.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(url.host):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def default_ssl_context() -> ssl.SSLContext:
    """httpx's default SSL context (``verify=True``: certifi's CA bundle, or
    ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``), made once a process for those variables' values.

    A client made with ``verify=True`` loads the CA bundle again: 35-75 ms of CPU a
    ``connect()``, a platform over plain HTTP included. One context serves many clients and
    threads (requests shares one the same way).
    """
    return _ssl_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _ssl_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()


def _no_tls_context() -> ssl.SSLContext:
    """The context of a platform over plain HTTP, which never opens TLS: no CA bundle
    loaded (35-75 ms of CPU), none trusted, so a TLS connection through it would fail
    verification, never pass unchecked."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def default_timeout() -> httpx.Timeout:
    """The finite default timeouts of :mod:`opslib.client._constants`."""
    return httpx.Timeout(
        connect=C.DEFAULT_CONNECT_TIMEOUT,
        read=C.DEFAULT_READ_TIMEOUT,
        write=C.DEFAULT_WRITE_TIMEOUT,
        pool=C.DEFAULT_POOL_TIMEOUT,
    )


def user_agent() -> str:
    try:
        version = metadata.version("opslib")
    except metadata.PackageNotFoundError:  # pragma: no cover - source checkout
        version = "0"
    return f"opslib/{version} httpx/{httpx.__version__}"
