"""One SQLite connection per thread, reused across requests.

SQLite connections are cheap to keep and slow-ish to open (PRAGMAs, schema parse), so each
worker thread opens one on first use and keeps it. :meth:`Database.write` runs a
``BEGIN IMMEDIATE`` transaction; :meth:`Database.read` a deferred one, so that the several
statements of one page (total, rows) see one snapshot.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from opslib.server import store

__all__ = ["Database"]

MMAP_BYTES = 256 * 1024 * 1024
CACHE_KIB = 16 * 1024


class Database:
    """The platform's database file and its per-thread connections.

    Parameters
    ----------
    path
        The SQLite file; the schema is created when missing.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._generation = 0
        conn = store.connect(self.path)
        try:
            store.init_schema(conn)
        finally:
            conn.close()

    def conn(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        cached = getattr(self._local, "conn", None)
        if cached is not None and getattr(self._local, "generation", -1) == self._generation:
            return cached
        conn = store.connect(self.path)
        # Reads go through a memory map (shared by every connection, no read() per page)
        # and a larger page cache than SQLite's 2 MiB default: a 1000-row page touches
        # thousands of pages, each a read() call and a copy without the map.
        conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        with self._lock:
            self._all.append(conn)
        self._local.conn = conn
        self._local.generation = self._generation
        return conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent snapshot for several statements."""
        conn = self.conn()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction; commits on success, else rolls back.

        An exception with a true ``persist`` attribute commits before propagating.
        """
        conn = self.conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException as exc:
            # An error that says so keeps what was written (a wrong code's attempt count).
            conn.execute("COMMIT" if getattr(exc, "persist", False) else "ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close every connection; threads open fresh ones if used again."""
        with self._lock:
            conns, self._all = self._all, []
            self._generation += 1
        for conn in conns:
            conn.close()
