"""Running the platform: ``opslib server``, ``opslib demo``, and a server in a thread.

uvicorn serves with httptools (with deadlines for slow clients: opslib.server.deadlines)
and uvloop. Its access log is off: it would print
``/token/access`` query strings, which hold client secrets, codes and refresh tokens
(protocol §11); the platform logs its own access lines without query strings at DEBUG.
"""

from __future__ import annotations

import logging
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import uvicorn

from opslib.dialects import Dialect
from opslib.protocol.tables import resolve_dialect
from opslib.server import demo as demo_credentials
from opslib.server.app import create_app
from opslib.server.config import Settings
from opslib.server.deadlines import bounded_protocol

__all__ = ["demo", "serve", "start_in_thread"]

log = logging.getLogger("opslib.server.runner")

SEED_SCALES = ("demo", "small")
DEMO_DB = Path("data") / "demo.db"
KEEP_ALIVE_S = 5  # an idle connection between requests is closed after this (uvicorn's)


def _has_users(db_path: str | Path) -> bool:
    path = Path(db_path)
    if not path.exists():
        return False
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT 1 FROM users LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:  # no schema yet
        return False
    finally:
        conn.close()


def _seed_if_empty(db_path: str | Path, seed: str) -> bool:
    """Seed an empty database at ``seed`` scale; True when it did."""
    if seed not in SEED_SCALES or _has_users(db_path):
        return False
    from opslib.server.seed import seed_database

    Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    seed_database(db_path, scale=seed)
    return True


def _settings(rate_limit: float | None) -> Settings:
    settings = Settings()
    if rate_limit is None:
        return settings
    return replace(settings, rate_limit_per_s=rate_limit, rate_limit_burst=max(2 * rate_limit, 1))


def _print_credentials() -> None:
    d = demo_credentials
    print(f"  client_id={d.CLIENT_ID} client_secret={d.CLIENT_SECRET} area_code={d.AREA_CODE}")
    print(f"  ops:   phone {d.OPS_PHONE} password {d.OPS_PASSWORD}")
    print(f"  admin: phone {d.ADMIN_PHONE} password {d.ADMIN_PASSWORD}")
    print(f"  user:  phone {d.USER_PHONE} password {d.USER_PASSWORD}")


def _uvicorn_config(
    app: object, host: str, port: int, log_level: str, settings: Settings
) -> uvicorn.Config:
    http = bounded_protocol(
        header_timeout_s=settings.header_timeout_s,
        body_timeout_s=settings.body_timeout_s,
        max_header_bytes=settings.max_header_bytes,
    )
    return uvicorn.Config(
        app,  # type: ignore[arg-type]
        host=host,
        port=port,
        http=http,
        loop="uvloop",
        timeout_keep_alive=KEEP_ALIVE_S,
        access_log=False,
        log_level=log_level,
        lifespan="on",
    )


def serve(
    db_path: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    seed: str = "none",
    rate_limit: float | None = None,
    dialect: str | None = None,
    docs: bool = False,
) -> int:
    """Serve the platform over ``db_path`` until interrupted.

    Parameters
    ----------
    db_path
        The SQLite file (created when missing).
    host, port
        Where to listen (default loopback only).
    seed
        ``"demo"`` or ``"small"`` seeds a database without users first; ``"none"`` never.
    rate_limit
        Per-token requests per second (0 turns the limit off); default protocol §8.
    dialect
        The built-in dialect to speak (``opslib.dialects``); default the reference one.
        Under a dialect whose server maps codes (``"chint"``) a database seeded now holds
        only what that platform can say (:func:`opslib.server.seed.dialect.fold_onto_dialect`).
    docs
        Serve ``/openapi.json`` and ``/docs`` (off by default).

    Returns
    -------
    int
        The process exit status.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    spoken = resolve_dialect(dialect)
    seeded = _seed_if_empty(db_path, seed)
    if seeded:
        from opslib.server.seed.dialect import fold_onto_dialect, folded_codes

        if folded_codes(spoken):
            fold_onto_dialect(db_path, spoken)
    settings = _settings(rate_limit)
    app = create_app(db_path, settings=settings, dialect=spoken, docs=docs)
    named = f", dialect {spoken.name}" if dialect else ""
    print(f"opslib platform on http://{host}:{port} (database {db_path}{named})", flush=True)
    if seeded:
        print("seeded demo credentials:")
        _print_credentials()
    uvicorn.Server(_uvicorn_config(app, host, port, "info", settings)).run()
    return 0


def start_in_thread(
    db_path: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    settings: Settings | None = None,
    dialect: Dialect | str | None = None,
    docs: bool = False,
) -> tuple[str, Callable[[], None]]:
    """Serve the platform from a background thread; return once it accepts connections.

    Parameters
    ----------
    db_path
        The SQLite file.
    host, port
        Where to listen; port 0 picks a free one.
    settings
        Server settings (default :class:`Settings`).
    dialect
        The dialect to speak (default the reference platform's).
    docs
        Serve ``/openapi.json`` and ``/docs`` (off by default).

    Returns
    -------
    tuple
        ``(base_url, stop)``; ``stop()`` shuts the server down and waits for the thread.
    """
    settings = settings or Settings()
    app = create_app(db_path, settings=settings, dialect=dialect, docs=docs)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_port = sock.getsockname()[1]
    server = uvicorn.Server(_uvicorn_config(app, host, bound_port, "warning", settings))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="opslib-server", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the opslib platform did not start")
        time.sleep(0.01)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()

    return f"http://{host}:{bound_port}", stop


def demo(out: str = "reports") -> int:
    """Seed ``data/demo.db`` when missing and serve it until Ctrl-C.

    Parameters
    ----------
    out
        Where reports will go (used once the reports are wired in).

    Returns
    -------
    int
        The process exit status.
    """
    del out  # the report run replaces this body
    seeded = _seed_if_empty(DEMO_DB, "demo")
    base_url, stop = start_in_thread(DEMO_DB, port=8000)
    print(f"opslib demo platform on {base_url} (database {DEMO_DB}); Ctrl-C stops it")
    if seeded:
        print("seeded now.")
    _print_credentials()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        stop()
    return 0
