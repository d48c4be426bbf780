"""Page decoding in helper processes, beside the reading process's own core.

A bulk read is bound by the one core its process can use: decoding a 1000-event page
(``orjson.loads`` and typing its columns) is 3-4 ms of CPU under the GIL, the HTTP exchange
about 1.5 ms. A :class:`DecoderPool` runs that decoding in helper processes as well: plain
``python -c 'from opslib.client._offload import main; main()'`` children that read page bodies on
their stdin and write the typed columns (a pickle) on their stdout. There is no
``multiprocessing``, so a user's script is never imported a second time, and daemonic
processes (Dask's workers, say) may have helpers too.

Which lane decodes a page (:meth:`DecoderPool.decode`), in order:

1. an idle helper;
2. else the reading process itself, when none of its threads is decoding
   (:data:`~opslib.client._http.DECODE_LOCK` free): its core is otherwise idle;
3. else the next helper to become idle.

Whatever a helper cannot turn into columns (an error envelope, a body that is not JSON,
data that fails to type) comes back as None and is decoded in the reading process by the
same code as without helpers, so errors are raised there, the same way. A helper that dies
is dropped and its page decoded in-process. A helper exits when its stdin closes: at
:meth:`DecoderPool.close`, when the pool is collected, or when the reading process ends.

Per page, parent → child: ``!IQ`` (schema index, body length) and the body; child →
parent: ``!Q`` (length) and the pickle of a :class:`DecodedPage` or of None.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from opslib.client import _constants as C
from opslib.client import _schemas as S
from opslib.client._frames import PageColumns, page_columns
from opslib.client._http import DECODE_LOCK
from opslib.exceptions import ConfigError

__all__ = [
    "Decode",
    "DecodedPage",
    "DecoderPool",
    "check_processes",
    "decode_page",
    "default_processes",
]

log = logging.getLogger("opslib")

Decode = Callable[[bytes], Any]
"""Offered a response body first; returns the result, or None to decode it as usual."""

_HEAD = struct.Struct("!IQ")
_LEN = struct.Struct("!Q")
_READY = b"R"
# The schemas a helper types pages into, by their index on the wire, with their list key.
_SCHEMAS = ((S.EVENT, "events_list"), (S.DEVICE, "device_list"))


def check_processes(processes: object) -> int:
    """``decode_processes`` as given to :func:`opslib.connect`: a whole number, 0 or more."""
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 0:
        raise ValueError(
            f"decode_processes must be a whole number of processes, 0 or more "
            f"(0 decodes every page in this process), got {processes!r}"
        )
    return processes


def default_processes() -> int:
    """How many helpers a client gets: ``OPSLIB_DECODE_PROCESSES``, else
    :data:`~opslib.client._constants.DEFAULT_DECODE_PROCESSES` (none: see there why)."""
    text = os.environ.get(C.DECODE_PROCESSES_ENV, "").strip()
    if not text:
        return C.DEFAULT_DECODE_PROCESSES
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ConfigError(
            f"{C.DECODE_PROCESSES_ENV} must be a whole number of processes (0 turns them off), "
            f"got {text!r}"
        )
    return value


@dataclass
class DecodedPage:
    """One page typed into columns, with the envelope's ``total`` and the page's rows."""

    total: int
    rows: int
    columns: PageColumns


def decode_page(body: bytes, schema: S.FrameSchema, list_key: str) -> DecodedPage | None:
    """A success envelope's page as columns; None for anything else (the caller decodes it)."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict) or doc.get("error_code") != 200:
        return None
    data = doc.get("data")
    if not isinstance(data, dict) or not isinstance(data.get(list_key), list):
        return None
    records = data[list_key]
    del doc
    columns = page_columns(records, schema, defer=True)
    return DecodedPage(int(data.get("total") or 0), len(records), columns)


def _read_exact(stream: IO[bytes], n: int) -> bytes:
    data = stream.read(n)
    if data is None or len(data) != n:
        raise EOFError("the decoding helper closed its pipe")
    return data


def _widen(fd: int) -> None:
    """Let a whole page through the pipe in one write (Linux; 64 kB by default)."""
    with contextlib.suppress(ImportError, OSError, AttributeError):
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, C.OFFLOAD_PIPE_BYTES)


class _Helper:
    """One child process and its two pipes; used by one thread at a time."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None
        assert proc.stdout is not None
        self.proc = proc
        self.stdin: IO[bytes] = proc.stdin
        self.stdout: IO[bytes] = proc.stdout

    def decode(self, body: bytes, schema_index: int) -> DecodedPage | None:
        self.stdin.write(_HEAD.pack(schema_index, len(body)))
        self.stdin.write(body)
        self.stdin.flush()
        (size,) = _LEN.unpack(_read_exact(self.stdout, _LEN.size))
        blob = _read_exact(self.stdout, size)
        with DECODE_LOCK:  # CPU only, as decoding
            result: DecodedPage | None = pickle.loads(blob)  # noqa: S301 - our own child wrote it
        return result

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            self.stdout.close()


def _spawn() -> subprocess.Popen[bytes]:
    root = str(Path(__file__).resolve().parent.parent)  # the directory holding opslib/
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return subprocess.Popen(  # this interpreter, our own module
        [sys.executable, "-c", "from opslib.client._offload import main; main()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )


def _close_all(helpers: list[_Helper]) -> None:
    while helpers:
        helpers.pop().close()


class DecoderPool:
    """``processes`` decoding helpers of one client, started on first use; thread-safe.

    Parameters
    ----------
    processes
        How many helpers; 0 turns them off (every page is decoded in-process).
    """

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._idle: queue.SimpleQueue[_Helper] = queue.SimpleQueue()
        self._helpers: list[_Helper] = []
        self._alive = 0
        self.decoded = 0
        """Pages the helpers have turned into columns."""
        self._lock = threading.Lock()
        self._started = False
        self._closed = False
        self._ready = threading.Event()
        self._pid = os.getpid()
        self._finalizer = weakref.finalize(self, _close_all, self._helpers)

    @property
    def alive(self) -> int:
        """Helpers started and not failed."""
        return self._alive

    def start(self) -> None:
        """Start the helpers in the background (once); each joins the pool when ready."""
        with self._lock:
            if self._started or self._closed or self.processes < 1:
                return
            self._started = True
        threading.Thread(target=self._start_all, name="opslib-decoders", daemon=True).start()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Start the helpers and wait for the first to be ready; False if none was in time."""
        self.start()
        return self._ready.wait(timeout)

    def _start_all(self) -> None:
        for _ in range(self.processes):
            try:
                helper = _Helper(_spawn())
            except OSError as exc:
                log.debug("a page-decoding helper could not start: %s", exc)
                return
            with self._lock:
                if self._closed:
                    helper.close()
                    return
                self._helpers.append(helper)
            try:
                ready = _read_exact(helper.stdout, 1) == _READY
            except (EOFError, OSError, ValueError):  # ValueError: closed meanwhile
                ready = False
            with self._lock:
                if self._closed:
                    return
                if not ready:
                    log.debug(
                        "a page-decoding helper failed to start (exit %s)", helper.proc.poll()
                    )
                    continue
                _widen(helper.stdin.fileno())
                _widen(helper.stdout.fileno())
                self._alive += 1
            self._idle.put(helper)
            self._ready.set()

    def _take(self) -> _Helper | None:
        """A helper for the next page, or None: decode it in this process (see the module)."""
        if not self._ready.is_set() or self._closed or os.getpid() != self._pid:
            return None  # none ready yet; or closed; or a forked copy of the pool
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        if not DECODE_LOCK.locked():
            return None  # this process's own decoding lane is free
        while self._alive > 0 and not self._closed:
            try:
                return self._idle.get(timeout=C.OFFLOAD_POLL_SECONDS)
            except queue.Empty:
                continue
        return None

    def decode(self, body: bytes, schema: S.FrameSchema) -> DecodedPage | None:
        """The page's columns from a helper, or None: decode it in this process."""
        index = next((i for i, (known, _) in enumerate(_SCHEMAS) if known is schema), None)
        helper = None if index is None else self._take()
        if helper is None or index is None:
            return None
        try:
            result = helper.decode(body, index)
        except (EOFError, OSError, ValueError, pickle.UnpicklingError) as exc:  # ValueError: closed
            log.debug("a page-decoding helper failed (%s); decoding the page here", exc)
            with self._lock:
                self._alive = max(0, self._alive - 1)  # close() may have zeroed it
            helper.close()
            return None
        self._idle.put(helper)
        if result is not None:
            with self._lock:
                self.decoded += 1
        return result

    def close(self) -> None:
        """Stop the helpers; reads after this decode in-process."""
        with self._lock:
            self._closed = True
            self._alive = 0
        self._finalizer()


def _serve(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    stdout.write(_READY)
    stdout.flush()
    while True:
        head = stdin.read(_HEAD.size)
        if len(head) < _HEAD.size:
            return  # the parent closed the pipe
        index, size = _HEAD.unpack(head)
        body = _read_exact(stdin, size)
        schema, list_key = _SCHEMAS[index]
        try:
            result = decode_page(body, schema, list_key)
        except Exception:  # the parent decodes the page again and raises there
            result = None
        del body
        out = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        stdout.write(_LEN.pack(len(out)))
        stdout.write(out)
        stdout.flush()


def main() -> None:
    """A helper's loop: page bodies in on stdin, typed columns out on stdout."""
    import signal

    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not reach the parent's pipe
    # Ctrl-C in a terminal reaches the whole process group: the reading process handles
    # it; its helpers stay for the next read and end with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from opslib.client._pager import bulk_gc

    with bulk_gc(), contextlib.suppress(BrokenPipeError):
        _serve(sys.stdin.buffer, out)
