"""What a new HTTP client starts with: finite timeouts, httpx's SSL context made once a
process, and opslib's User-Agent (:class:`opslib.client._http.HTTP`)."""

from __future__ import annotations

import functools
import os
import ssl
from importlib import metadata

import httpx

from opslib.client import _constants as C

__all__ = ["default_ssl_context", "default_timeout", "user_agent"]


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
