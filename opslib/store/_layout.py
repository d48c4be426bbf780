"""Where a store lives, what it records about itself, and how it is written safely.

A store is one directory, bound to one platform and one caller (the user whose reads
filled it: two users see different events)::

    store.json                         the platform, the caller, the event labels
    state.json                         per query: since, watermark, last sync, rows;
                                       snapshot days
    .lock                              one writer at a time (filelock, flock)
    events/day=YYYY-MM-DD/<query>.parquet      a query's events of one UTC day, whole
    devices/day=YYYY-MM-DD.parquet     the device list as it was that day
    products/day=YYYY-MM-DD.parquet    (and categories/): the same for products

Every file is written to a temporary name in its directory and renamed over the old one
(``os.replace``), and ``state.json`` is written after the files it describes: a process
killed at any moment leaves every file whole, and a state that claims no more than the
files hold. A sync that starts again re-reads from the recorded watermark.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from opslib.exceptions import ConfigError, OpsError

__all__ = [
    "DAY_MS",
    "SOURCES",
    "STORE_ENV",
    "Layout",
    "QueryState",
    "StoreGap",
    "StoreLocked",
    "StoreMismatch",
    "atomic_write",
    "day_of",
    "day_start",
    "default_store_dir",
    "query_id",
]

STORE_ENV = "OPSLIB_STORE"
SOURCES = ("platform", "store")
"""Where a report reads events from: the platform, or this store (its ``source``)."""
DAY_MS = 86_400_000
FORMAT = 1
LOCK_TIMEOUT_S = 5.0


class StoreLocked(OpsError):
    """Another process is writing to the store (``opslib sync`` holds its lock)."""


class StoreMismatch(ConfigError):
    """The store belongs to another platform or caller than the client's."""


class StoreGap(OpsError):
    """A read asks for events the store does not hold (before its first synced day, or
    more than a day after its last sync): a report from it would count too few."""


def default_store_dir() -> Path:
    """``OPSLIB_STORE``, else ``<user data dir>/opslib/store``.

    Examples
    --------
    >>> default_store_dir().name  # doctest: +SKIP
    'store'
    """
    explicit = os.environ.get(STORE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("opslib")) / "store"


def day_start(ms: int) -> int:
    """The start of the UTC day holding ``ms`` (epoch milliseconds)."""
    return ms - ms % DAY_MS


def day_of(ms: int) -> str:
    """``YYYY-MM-DD`` of the UTC day holding ``ms``.

    >>> day_of(86_400_000)
    '1970-01-02'
    """
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d")


def ms_of_day(day: str) -> int:
    """Epoch milliseconds of a ``YYYY-MM-DD`` UTC day's start."""
    moment = dt.datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=dt.UTC)
    return int(moment.timestamp()) * 1000


def query_id(kind: str, key: str | None) -> str:
    """The file name (without suffix) of a query's day files: ``fleet``, or the kind and a
    hash of its key (ids may hold characters a file name cannot).

    >>> query_id("fleet", None), query_id("device", "d-1")[:7]
    ('fleet', 'device-')
    """
    if kind == "fleet":
        return "fleet"
    return f"{kind}-{hashlib.sha256(str(key).encode()).hexdigest()[:16]}"


def atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    """``write(tmp)`` then rename ``tmp`` over ``path``: readers see the old file or the new
    one, never part of one; a failure leaves the old file and no temporary."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


@dataclass
class QueryState:
    """What the store holds of one query: events in ``[since, watermark)``, complete as of
    their last read (a UTC day is always stored whole, the last one up to the watermark)."""

    kind: str  # fleet | user | device
    key: str | None = None  # the user_id or device_id
    since: int | None = None  # epoch ms, a day start
    watermark: int | None = None  # epoch ms
    last_sync: str | None = None  # ISO 8601 UTC
    late_window_ms: int | None = None

    @property
    def id(self) -> str:
        return query_id(self.kind, self.key)

    def describe(self) -> str:
        return self.kind if self.key is None else f"{self.kind} {self.key}"


@dataclass
class Layout:
    """A store's directory: its paths, its identity and state files, its lock."""

    root: Path
    identity: dict[str, Any] = field(default_factory=dict)
    queries: dict[str, QueryState] = field(default_factory=dict)
    snapshots: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, root: Path | str | None = None) -> Layout:
        """The store at ``root`` (default :func:`default_store_dir`), read if it exists."""
        path = Path(root).expanduser() if root is not None else default_store_dir()
        layout = cls(path)
        layout.reload()
        return layout

    def reload(self) -> None:
        self.identity = _read_json(self.root / "store.json") or {}
        state = _read_json(self.root / "state.json") or {}
        self.queries = {
            qid: QueryState(**fields) for qid, fields in (state.get("queries") or {}).items()
        }
        self.snapshots = state.get("snapshots") or {}

    # -- paths -------------------------------------------------------------------------

    @property
    def events_dir(self) -> Path:
        return self.root / "events"

    def day_dir(self, day: str) -> Path:
        return self.events_dir / f"day={day}"

    def event_file(self, qid: str, day: str) -> Path:
        return self.day_dir(day) / f"{qid}.parquet"

    def snapshot_file(self, what: str, day: str) -> Path:
        return self.root / what / f"day={day}.parquet"

    def event_days(self) -> dict[str, list[Path]]:
        """Each stored day → its query files, days in order."""
        out: dict[str, list[Path]] = {}
        if not self.events_dir.is_dir():
            return out
        for day_dir in sorted(self.events_dir.glob("day=*")):
            files = sorted(p for p in day_dir.glob("*.parquet") if not p.name.startswith("."))
            if files:
                out[day_dir.name.removeprefix("day=")] = files
        return out

    def snapshot_files(self, what: str) -> list[Path]:
        folder = self.root / what
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.glob("day=*.parquet") if not p.name.startswith("."))

    # -- writing -----------------------------------------------------------------------

    def ensure(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)

    def write_identity(self, identity: dict[str, Any]) -> None:
        self.ensure()
        doc = {"format": FORMAT, **identity}
        atomic_write(
            self.root / "store.json",
            lambda p: p.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2)),
        )
        self.identity = doc

    def save_state(self) -> None:
        """Write ``state.json`` atomically (after the files it describes)."""
        doc = {
            "format": FORMAT,
            "queries": {qid: vars(q) for qid, q in self.queries.items()},
            "snapshots": self.snapshots,
        }
        atomic_write(
            self.root / "state.json",
            lambda p: p.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2)),
        )

    @contextlib.contextmanager
    def writer(self, timeout: float | None = None) -> Iterator[None]:
        """Hold the store's lock (one writer at a time); :class:`StoreLocked` when another
        process holds it for longer than ``timeout`` seconds. Temporary files left by a
        writer that was killed are removed once the lock is held."""
        import filelock

        self.ensure()
        lock = filelock.FileLock(str(self.root / ".lock"))
        try:
            lock.acquire(timeout=LOCK_TIMEOUT_S if timeout is None else timeout)
        except filelock.Timeout:
            raise StoreLocked(
                f"the store {self.root} is being written by another process (lock "
                f"{self.root / '.lock'}); wait for it to finish"
            ) from None
        try:
            self._sweep()
            self.reload()
            yield
        finally:
            lock.release()

    def _sweep(self) -> None:
        for tmp in self.root.rglob(".*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        value = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        raise ConfigError(f"the store file {path} cannot be read ({exc})") from None
    return value if isinstance(value, dict) else None
