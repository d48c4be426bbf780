"""``opslib seed``: parse the command's arguments, seed, and print a summary with the demo
credentials.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from opslib.server import demo
from opslib.server.seed.database import DatabaseNotEmptyError, seed_database
from opslib.server.seed.vocabulary import SEEDED_PHONE_BASE

__all__ = ["seed_command", "summary_lines"]


def _parse_until(text: str | None) -> dt.datetime | None:
    """``--until`` as an aware UTC datetime (naive or ``Z`` means UTC); None stays None."""
    if text is None:
        return None
    value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def seed_command(
    db: str | Path,
    *,
    scale: str = "demo",
    seed_value: int = 42,
    until: str | dt.datetime | None = None,
    out: Callable[[str], Any] = print,
) -> int:
    """``opslib seed``: seed ``db`` and print a summary with the demo credentials.

    Parameters
    ----------
    db
        The SQLite file to create or fill; it must hold no users.
    scale
        ``small``, ``demo`` or ``large``.
    seed_value
        Random seed.
    until
        End of the event window, ISO 8601 (naive or ``Z`` means UTC), or a datetime;
        default now.
    out
        Where the summary lines go (default ``print``).

    Returns
    -------
    int
        0 on success, 1 when the database is not empty, 2 on a bad argument (a ``db``
        that is a directory, not SQLite or not writable too).
    """
    try:
        until_dt = _parse_until(until) if isinstance(until, str) or until is None else until
    except ValueError:
        print(f"opslib seed: --until {until!r} is not an ISO 8601 time", file=sys.stderr)
        return 2
    if Path(db).is_dir():
        print(f"opslib seed: --db {str(db)!r}: a directory, not a database file", file=sys.stderr)
        return 2
    try:
        result = seed_database(db, scale=scale, seed_value=seed_value, until=until_dt)
    except DatabaseNotEmptyError as exc:
        print(f"opslib seed: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"opslib seed: {exc}", file=sys.stderr)
        return 2
    except (OSError, sqlite3.DatabaseError) as exc:  # not SQLite, or not writable there
        print(f"opslib seed: --db {str(db)!r}: cannot open it: {exc}", file=sys.stderr)
        return 2
    for line in summary_lines(db, result):
        out(line)
    return 0


def summary_lines(db: str | Path, result: dict[str, Any]) -> list[str]:
    """The human summary of a seed: counts and the (public, fake) demo credentials.

    Parameters
    ----------
    db
        The database path.
    result
        What :func:`seed_database` returned.

    Returns
    -------
    list of str
        Lines to print.
    """
    return [
        f"Seeded {db} ({result['scale']} scale, seed {result['seed_value']}, "
        f"events until {result['until']}) in {result['seconds']:.1f} s:",
        f"  {result['categories']} categories, {result['products']} products, "
        f"{result['users']} users, {result['devices']} devices, "
        f"{result['bindings']} bindings, {result['events']:,} events",
        "Demo credentials (public on purpose; the data is fake):",
        f"  client_id / client_secret  {demo.CLIENT_ID} / {demo.CLIENT_SECRET}",
        f"  ops account    area code {demo.AREA_CODE}, phone {demo.OPS_PHONE}, "
        f"password {demo.OPS_PASSWORD}",
        f"  admin account  area code {demo.AREA_CODE}, phone {demo.ADMIN_PHONE}, "
        f"password {demo.ADMIN_PASSWORD}",
        f"  plain user     area code {demo.AREA_CODE}, phone {demo.USER_PHONE}, "
        f"password {demo.USER_PASSWORD}",
        f"  other users    area code {demo.AREA_CODE}, phones {SEEDED_PHONE_BASE}+n, "
        f"password {demo.SEEDED_USER_PASSWORD}",
    ]
