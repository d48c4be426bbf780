"""Running the platform: ``opslib server``, ``opslib demo``, and a server in a thread.

uvicorn serves with httptools (with deadlines for slow clients: opslib.server.deadlines)
and uvloop. Its access log is off: it would print
``/token/access`` query strings, which hold client secrets, codes and refresh tokens
(protocol §11); the platform logs its own access lines without query strings at DEBUG.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import math
import socket
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import uvicorn

from opslib.dialects import Dialect
from opslib.protocol.tables import resolve_dialect
from opslib.server import demo as demo_credentials
from opslib.server.app import create_app, docs_refusal
from opslib.server.config import Settings
from opslib.server.deadlines import bounded_protocol

__all__ = ["bind", "serve", "start_in_thread"]

log = logging.getLogger("opslib.server.runner")

SEED_SCALES = ("demo", "small")
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


def _loopback(host: str) -> bool:
    """Whether ``host`` is an address of this machine only (``localhost`` included)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a name: whatever it resolves to may be reachable
        return False


def _demo_admin_open(db_path: str | Path) -> bool:
    """Whether the database holds the demo admin account with its published password."""
    from opslib.server.security import verify_password

    try:
        with contextlib.closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as con:
            row = con.execute(
                "SELECT password_hash FROM users WHERE area_code = ? AND phone = ?",
                (demo_credentials.AREA_CODE, demo_credentials.ADMIN_PHONE),
            ).fetchone()
    except sqlite3.Error:
        return False
    return row is not None and verify_password(row[0], demo_credentials.ADMIN_PASSWORD)


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (port 0: a free one), of the address family
    ``host`` resolves to, before any request can be served.

    Raises
    ------
    OSError
        The address cannot be had: in use, not this machine's, or a name that does not
        resolve.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def _refusal(db_path: str | Path, port: int, rate_limit: float | None) -> str:
    """What is wrong with ``opslib server``'s arguments, naming each and what is allowed
    ("" when nothing is)."""
    if not 0 <= port <= 65535:
        return f"--port {port}: not a port; accepted: 0 to 65535 (0: a free one)"
    if rate_limit is not None and not (math.isfinite(rate_limit) and rate_limit >= 0):
        return (
            f"--rate-limit {rate_limit}: not a rate; accepted: requests per second, "
            "a number of 0 or more (0 turns the limit off)"
        )
    if Path(db_path).is_dir():
        return f"--db {str(db_path)!r}: a directory, not a database file"
    return ""


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
        The process exit status: 0 once stopped, 2 when an argument is refused or the
        address cannot be had (nothing is started, and the database is left as it was).
    """
    refused = _refusal(db_path, port, rate_limit)
    if refused:
        print(f"opslib server: {refused}; nothing was started", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    spoken = resolve_dialect(dialect)
    if docs and (refused := docs_refusal(spoken)):
        print(f"opslib server: {refused}; nothing was started", file=sys.stderr)
        return 2
    try:
        sock = bind(host, port)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        print(
            f"opslib server: cannot listen on {host} port {port}: {reason}; "
            "choose another --port or --host; nothing was started",
            file=sys.stderr,
        )
        return 2
    with sock:
        try:
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
            seeded = _seed_if_empty(db_path, seed)
            if seeded:
                from opslib.server.seed.dialect import fold_onto_dialect, folded_codes

                if folded_codes(spoken):
                    fold_onto_dialect(db_path, spoken)
            settings = _settings(rate_limit)
            app = create_app(db_path, settings=settings, dialect=spoken, docs=docs)
        except (OSError, sqlite3.DatabaseError) as exc:
            print(
                f"opslib server: --db {str(db_path)!r}: cannot open it: {exc}; nothing was started",
                file=sys.stderr,
            )
            return 2
        bound = sock.getsockname()[1]
        named = f", dialect {spoken.name}" if dialect else ""
        shown = f"[{host}]" if ":" in host else host
        print(f"opslib platform on http://{shown}:{bound} (database {db_path}{named})", flush=True)
        if seeded:
            print("seeded demo credentials:")
            _print_credentials()
        if not _loopback(host) and _demo_admin_open(db_path):
            print(
                f"opslib server: warning: listening on {host}, beyond this machine, with the "
                "demo admin account's published password (admin-demo-pass): anyone who can "
                "reach the port can change the products; serve on 127.0.0.1, or change that "
                "password (client.auth.change_password)",
                file=sys.stderr,
                flush=True,
            )
        config = _uvicorn_config(app, host, bound, "info", settings)
        uvicorn.Server(config).run(sockets=[sock])
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
    sock = bind(host, port)
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
