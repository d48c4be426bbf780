"""The embedded reference platform that connect() starts when nothing is configured.

One platform per process, on 127.0.0.1 and a free port, in a background thread, over a
demo database in the user's cache directory (``<user cache dir>/opslib/demo.db``), seeded on
first use. ``OPSLIB_EMBEDDED_DB`` and ``OPSLIB_EMBEDDED_SCALE`` override the database path
and the seed scale (tests and CI use a small database). The server package is imported only
here, and only when the embedded platform is needed, so ``import opslib`` stays light.
``connect(dialect="vendor")`` with nothing else configured starts one speaking that dialect
(one per database and dialect).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import platformdirs

from opslib.client._constants import APP_NAME, EMBEDDED_DB_FILENAME, EMBEDDED_DEFAULT_SCALE
from opslib.client._settings import Settings, with_defaults
from opslib.dialects import Dialect
from opslib.protocol.tables import dialect_to_toml

__all__ = ["EmbeddedPlatform", "embedded_db_path", "embedded_platform", "embedded_settings"]

log = logging.getLogger("opslib")

_lock = threading.Lock()
_running: dict[tuple[Path, str], EmbeddedPlatform] = {}  # by database and dialect (as TOML)


@dataclass(frozen=True)
class EmbeddedPlatform:
    """A running embedded platform: where it listens and which database it serves."""

    base_url: str
    db_path: Path
    stop: Callable[[], None]


def embedded_db_path() -> Path:
    """``OPSLIB_EMBEDDED_DB``, else ``<user cache dir>/opslib/demo.db``."""
    explicit = os.environ.get("OPSLIB_EMBEDDED_DB")
    if explicit:
        return Path(explicit).expanduser().resolve()
    return Path(platformdirs.user_cache_dir(APP_NAME)).resolve() / EMBEDDED_DB_FILENAME


def _seeded_marker(db: Path) -> Path:
    return db.with_name(db.name + ".seeded")


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` so two processes do not seed one database at once."""
    try:
        import fcntl
    except ImportError:  # Windows: one process at a time is the user's business there
        yield
        return
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _ensure_seeded(db: Path, scale: str) -> None:
    """Seed ``db`` unless a completed seed is recorded; a half-seeded file is started over."""
    from opslib.server.seed import seed_database

    db.parent.mkdir(parents=True, exist_ok=True)
    marker = _seeded_marker(db)
    with _file_lock(db.with_name(db.name + ".lock")):
        if marker.exists() and db.exists():
            return
        for leftover in (db, *(db.with_name(db.name + s) for s in ("-wal", "-shm", ".sms.jsonl"))):
            leftover.unlink(missing_ok=True)
        log.info("seeding the embedded demo platform (%s scale) at %s", scale, db)
        seed_database(db, scale=scale)
        marker.write_text(f"scale={scale}\n", encoding="utf-8")


def embedded_platform(dialect: Dialect | None = None) -> EmbeddedPlatform:
    """Start the embedded platform, or return the one this process already runs.

    Parameters
    ----------
    dialect
        The dialect it speaks (default the reference platform's).

    Returns
    -------
    EmbeddedPlatform
        Its ``base_url``, ``db_path`` and ``stop`` (also registered with atexit).

    Examples
    --------
    >>> platform = embedded_platform()  # doctest: +SKIP
    >>> platform.base_url  # doctest: +SKIP
    'http://127.0.0.1:40123'
    """
    db = embedded_db_path()
    spoken = dialect or Dialect()
    with _lock:
        key = (db, dialect_to_toml(spoken))
        running = _running.get(key)
        if running is not None:
            return running
        scale = os.environ.get("OPSLIB_EMBEDDED_SCALE") or EMBEDDED_DEFAULT_SCALE
        _ensure_seeded(db, scale)
        from opslib.server.runner import start_in_thread

        base_url, stop = start_in_thread(db, dialect=spoken)
        platform = EmbeddedPlatform(base_url=base_url.rstrip("/"), db_path=db, stop=stop)
        _running[key] = platform
        atexit.register(_stop_quietly, stop)
        log.info("embedded platform at %s over %s", platform.base_url, db)
        return platform


def _stop_quietly(stop: Callable[[], None]) -> None:
    with contextlib.suppress(Exception):
        stop()


def embedded_settings(settings: Settings) -> Settings:
    """The settings with the embedded platform's base URL and its demo application; its ops
    account too, unless the settings name an account of their own."""
    from opslib.server import demo

    platform = embedded_platform(settings.dialect)
    account = {}
    if settings.phone is None:
        account = {
            "area_code": demo.AREA_CODE,
            "phone": demo.OPS_PHONE,
            "password": demo.OPS_PASSWORD,
        }
    return with_defaults(
        replace(settings, base_url=platform.base_url),
        client_id=demo.CLIENT_ID,
        client_secret=demo.CLIENT_SECRET,
        **account,
    )
