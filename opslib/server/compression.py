"""Compressed answers: the coding a request accepts, and the one buffer compressed.

A client that sends ``Accept-Encoding`` gets a successful answer of at least
:data:`MIN_COMPRESS_BYTES` compressed with the coding it weighs highest among those the
platform speaks (``zstd``, then ``gzip`` on a tie), with ``Content-Encoding`` and ``Vary:
Accept-Encoding``; anything else (no header, ``identity``, only codings the platform does
not speak, a small answer) goes out as it is (protocol §2).

The answer is compressed where it is made, in the worker thread that built it (both codecs
release the GIL while they work), from the one ``bytes`` of the envelope: a 1000-event page
is a JSON text made inside SQLite, embedded as it is in the envelope, and compressed once
into a buffer a seventh of its size (zstd; gzip: a fifth), which replaces it: no copy
of the page is made and the uncompressed one is freed as its answer leaves. Starlette's
``GZipMiddleware`` would do it on the event loop's side, gzip only, at level 9 by default
(docs/performance.md: the codecs and levels measured).
"""

from __future__ import annotations

import threading
import zlib

import zstandard

__all__ = ["CODINGS", "MIN_COMPRESS_BYTES", "choose_coding", "compress"]

# An answer that fits in one TCP segment (about 1460 bytes) saves no packet when compressed.
MIN_COMPRESS_BYTES = 1400
# The codings the platform speaks, in its order of preference when the client weighs them
# alike: zstd compresses a page smaller than gzip and several times faster to decode.
CODINGS = ("zstd", "gzip")
# Level 1 of gzip and zstd: higher levels cost the platform several times the CPU for a few
# percent fewer bytes on these pages (docs/performance.md).
GZIP_LEVEL = 1
ZSTD_LEVEL = 1

_local = threading.local()


def _weights(accept_encoding: str) -> dict[str, float]:
    """``Accept-Encoding`` as {coding: q} (RFC 9110 §12.5.3); a bad q weighs 0."""
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, _, params = item.partition(";")
        name = name.strip().lower()
        if not name:
            continue
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = min(1.0, max(0.0, float(value.strip())))
                except ValueError:
                    q = 0.0
        weights[name] = q
    return weights


def choose_coding(accept_encoding: str | None) -> str | None:
    """The coding to answer with, or None for the answer as it is.

    >>> choose_coding("gzip, deflate, zstd")
    'zstd'
    >>> choose_coding("gzip;q=1, zstd;q=0.5")
    'gzip'
    >>> choose_coding("identity") is None
    True
    """
    if not accept_encoding:
        return None
    weights = _weights(accept_encoding)
    anything = weights.get("*", 0.0)
    best, best_q = None, 0.0
    for coding in CODINGS:
        q = weights.get(coding, anything)
        if q > best_q:
            best, best_q = coding, q
    return best


def _zstd() -> zstandard.ZstdCompressor:
    # A compressor is not safe to share between threads; each worker thread keeps one.
    compressor: zstandard.ZstdCompressor | None = getattr(_local, "zstd", None)
    if compressor is None:
        compressor = _local.zstd = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    return compressor


def compress(body: bytes, coding: str | None) -> tuple[bytes, dict[str, str]]:
    """``body`` in ``coding`` (from :func:`choose_coding`) and the headers that say so; a
    body under :data:`MIN_COMPRESS_BYTES` or no coding: the body as it is.

    A compressed answer says ``Vary: Accept-Encoding``, so that a cache between the platform
    and the client keeps the codings apart.
    """
    if coding is None or len(body) < MIN_COMPRESS_BYTES:
        return body, {}
    if coding == "zstd":
        out = _zstd().compress(body)
    elif coding == "gzip":
        out = zlib.compress(body, GZIP_LEVEL, wbits=31)  # 31: the gzip container
    else:
        raise ValueError(f"coding must be one of {', '.join(CODINGS)}, got {coding!r}")
    return out, {"Content-Encoding": coding, "Vary": "Accept-Encoding"}
