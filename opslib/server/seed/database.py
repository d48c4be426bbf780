"""``seed_database``: run the stages in their fixed order and bulk-load the rows into SQLite.

Every table is loaded inside one transaction, so a failed seed leaves nothing behind.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import time
from pathlib import Path
from typing import Any

from opslib.server import demo, store
from opslib.server.security import sha256_hex
from opslib.server.seed.events import EventStream
from opslib.server.seed.fleet import build_fleet
from opslib.server.seed.identity import build_identity
from opslib.server.seed.people import build_people
from opslib.server.seed.products import build_products
from opslib.server.seed.rows import binding_rows, device_rows
from opslib.server.seed.scales import BUCKET_MS, DAY_MS, HISTORY_DAYS, SCALES, Run
from opslib.server.seed.specials import plan_special_events
from opslib.server.store import bulk

__all__ = ["DatabaseNotEmptyError", "seed_database"]


class DatabaseNotEmptyError(RuntimeError):
    """The target database already holds users; seeding would mix generated and real data."""


def _until_ms(until: dt.datetime | None) -> int:
    if until is None:
        return int(time.time()) * 1000
    if until.tzinfo is None:
        until = until.replace(tzinfo=dt.UTC)
    return int(until.timestamp() * 1000)


def _refuse_if_not_empty(path: Path) -> None:
    if not path.exists() or path.stat().st_size == 0:
        return
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        users = bulk.existing_user_count(conn)
    finally:
        conn.close()
    if users:
        raise DatabaseNotEmptyError(
            f"{path} already has {users} users; opslib seeds only an empty database "
            "(choose a new --db file)"
        )


def seed_database(
    db_path: str | Path,
    *,
    scale: str,
    seed_value: int = 42,
    until: dt.datetime | None = None,
) -> dict[str, Any]:
    """Fill an empty platform database with deterministic generated data.

    Parameters
    ----------
    db_path
        The SQLite file; created (with its directory) when missing. It must hold no users.
    scale
        ``"small"`` (tests), ``"demo"`` or ``"large"``; see :data:`SCALES`.
    seed_value
        Seed of the random generator: the same ``seed_value`` and ``until`` give the same
        table contents, byte for byte.
    until
        End of the event window (naive means UTC). Default: now, truncated to the second.

    Returns
    -------
    dict
        Row counts per table (``clients``, ``users``, ``settings``, ``categories``,
        ``products``, ``devices``, ``bindings``, ``events``, ``event_counts``), plus
        ``scale``, ``seed_value``, ``until`` (ISO 8601) and ``seconds`` taken.

    Raises
    ------
    DatabaseNotEmptyError
        The database already has users; nothing is written.
    ValueError
        Unknown scale, a negative seed value, or an ``until`` whose history would begin
        before 1970.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.db")
    >>> seed_database(path, scale="small")["devices"]
    60
    """
    started = time.perf_counter()
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; choose one of {', '.join(SCALES)}")
    if isinstance(seed_value, bool) or not isinstance(seed_value, int) or seed_value < 0:
        raise ValueError(f"seed value {seed_value!r}: give an integer of 0 or more")
    until_ms = _until_ms(until)
    until_iso = dt.datetime.fromtimestamp(until_ms / 1000, tz=dt.UTC).isoformat()
    if until_ms - HISTORY_DAYS * DAY_MS < 0:  # the platform reads nothing before 1970
        raise ValueError(
            f"until {until_iso}: the seeded history reaches {HISTORY_DAYS} days before it, "
            "into the time before 1970; give a later until"
        )
    path = Path(db_path)
    _refuse_if_not_empty(path)
    path.parent.mkdir(parents=True, exist_ok=True)

    run = Run.create(SCALES[scale], seed_value, until_ms)
    products = build_products(run)
    people = build_people(run)
    fleet = build_fleet(run, products, people)
    identity = build_identity(run, products, fleet)
    specials = plan_special_events(run, products, fleet)
    stream = EventStream(run, products, people, fleet, specials)

    conn = store.connect(path)
    try:
        store.init_schema(conn, event_indexes=False)
        bulk.begin_bulk_load(conn)
        try:
            with store.transaction(conn):
                if bulk.existing_user_count(conn):  # someone was faster
                    raise DatabaseNotEmptyError(f"{path} already has users")
                bulk.set_meta(
                    conn,
                    items={
                        "seed.scale": scale,
                        "seed.seed_value": str(seed_value),
                        "seed.until": until_iso,
                    },
                )
                bulk.insert_clients(
                    conn,
                    rows=[
                        (
                            demo.CLIENT_ID,
                            sha256_hex(demo.CLIENT_SECRET),
                            "opslib demo",
                            until_ms - 900 * DAY_MS,
                        )
                    ],
                )
                bulk.insert_users(conn, rows=people.user_rows)
                bulk.insert_settings(conn, rows=people.settings_rows)
                bulk.insert_categories(conn, rows=products.category_rows)
                bulk.insert_products(conn, rows=products.product_rows)
                for day_rows in stream.days():
                    bulk.insert_events(conn, rows=day_rows)
                bulk.insert_devices(
                    conn,
                    rows=device_rows(run, products, fleet, identity, specials, stream),
                )
                bulk.insert_bindings(conn, rows=binding_rows(run, people, fleet))
                store.create_event_indexes(conn)
                bulk.rebuild_event_counts(conn, bucket_ms=BUCKET_MS)
        finally:
            bulk.end_bulk_load(conn)
        counts: dict[str, Any] = dict(bulk.count_rows(conn))
    finally:
        conn.close()
    counts.update(
        scale=scale,
        seed_value=seed_value,
        until=until_iso,
        seconds=round(time.perf_counter() - started, 3),
    )
    return counts
