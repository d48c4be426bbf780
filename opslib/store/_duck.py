"""DuckDB over the store's files: the views of :func:`opslib.store.connect`.

The connection is in memory; the views read the Parquet files where they are (nothing is
copied), so a year-long group-by reads only the columns it names:

- ``events``: every stored event, the client's columns in its order (``gmt_create`` a UTC
  timestamp, ``event_type_name`` beside ``event_type`` as an ENUM of the platform's labels,
  ``properties.*`` members typed across the days), then ``properties``, the raw object as
  JSON text, and ``day``, the event's UTC day (a DATE: group by it rather than by
  ``date_trunc('day', gmt_create)``, which is slower). Where queries overlap (a device
  synced besides its user), each event once.
- ``devices``: every snapshot of the device list (``snapshot_day``, ``synced_at``, then the
  columns of ``client.devices.list``, labels as text); ``device_latest``: the latest one.
- ``products``, ``categories``: the latest snapshot of each.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from opslib.client.stored import TS, event_columns
from opslib.store._layout import Layout

if TYPE_CHECKING:
    import duckdb

__all__ = ["connect_views"]

_OPTIONS = "union_by_name = true, hive_partitioning = false"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _files_sql(paths: list[Path]) -> str:
    return "[" + ", ".join(_text(str(p)) for p in paths) + "]"


def _event_files(layout: Layout) -> tuple[list[Path], bool]:
    """The files the events view reads (a day the fleet holds: its file alone) and whether
    any day has several (then each event is kept once)."""
    chosen: list[Path] = []
    several = False
    for day, files in layout.event_days().items():
        fleet = layout.event_file("fleet", day)
        picked = [fleet] if fleet in files else files
        several = several or len(picked) > 1
        chosen += picked
    return chosen, several


def _columns(con: duckdb.DuckDBPyConnection, source: str) -> dict[str, str]:
    return {
        str(row[0]): str(row[1])
        for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
    }


def _typed(name: str, duck_type: str) -> str:
    """A column as the view shows it: nanosecond timestamps as UTC TIMESTAMPTZ."""
    if duck_type.startswith(("TIMESTAMP_NS", "TIMESTAMPTZ_NS", "TIMESTAMP WITH TIME ZONE")) or (
        duck_type == "TIMESTAMP_NS"
    ):
        return f"CAST({_quote(name)} AS TIMESTAMPTZ) AS {_quote(name)}"
    return _quote(name)


def _label_type(con: duckdb.DuckDBPyConnection, name: str, labels: Mapping[int, str]) -> str:
    values = list(dict.fromkeys(labels.values()))
    if not values:
        return "VARCHAR"
    con.execute(f"CREATE TYPE {name} AS ENUM ({', '.join(_text(v) for v in values)})")
    return name


def _label_sql(code: str, labels: Mapping[int, str], type_name: str) -> str:
    if not labels:
        return "CAST(NULL AS VARCHAR)"
    cases = " ".join(f"WHEN {int(k)} THEN {_text(v)}" for k, v in labels.items())
    return f"CAST(CASE {_quote(code)} {cases} END AS {type_name})"


def _events_views(
    con: duckdb.DuckDBPyConnection, layout: Layout, labels: Mapping[str, Mapping[int, str]]
) -> None:
    columns = event_columns(labels)
    files, several = _event_files(layout)
    if files:
        source = f"read_parquet({_files_sql(files)}, {_OPTIONS})"
    else:
        empty = ", ".join(f"CAST(NULL AS {c.sql_type}) AS {_quote(c.name)}" for c in columns)
        source = f"(SELECT {empty}, CAST(NULL AS VARCHAR) AS __properties__, "
        source += f"CAST(NULL AS BIGINT) AS {TS} WHERE false)"
    found = _columns(con, source)
    select: list[str] = []
    for col in columns:
        select.append(_typed(col.name, found.get(col.name, col.sql_type)))
        if col.labels is not None:
            type_name = _label_type(con, f"{col.name}_label", col.labels)
            sql = _label_sql(col.name, col.labels, type_name)
            select.append(f"{sql} AS {_quote(col.label_name)}")
    fixed = {c.name for c in columns}
    members = sorted(n for n in found if n not in fixed and n not in ("__properties__", TS))
    select += [_typed(n, found[n]) for n in members]
    select.append('"__properties__" AS properties')
    # the UTC day from the milliseconds: arithmetic on a plain timestamp, where a
    # TIMESTAMPTZ's date_trunc goes through the time zone library row by row (3x slower)
    select.append(f"CAST(make_timestamp({TS} * 1000) AS DATE) AS day")
    body = f"SELECT {', '.join(select)}, {TS} FROM {source}"
    if several:
        body += f" QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY {TS}) = 1"
    con.execute(f"CREATE VIEW _events_ts AS {body}")
    con.execute(f"CREATE VIEW events AS SELECT * EXCLUDE ({TS}) FROM _events_ts")


def _snapshot_view(con: duckdb.DuckDBPyConnection, name: str, files: list[Path], key: str) -> None:
    if not files:
        con.execute(
            f"CREATE VIEW {name} AS SELECT CAST(NULL AS DATE) AS snapshot_day, "
            f"CAST(NULL AS TIMESTAMPTZ) AS synced_at, CAST(NULL AS VARCHAR) AS {key} WHERE false"
        )
        return
    source = f"read_parquet({_files_sql(files)}, {_OPTIONS})"
    found = _columns(con, source)
    select = ", ".join(_typed(n, t) for n, t in found.items())
    con.execute(f"CREATE VIEW {name} AS SELECT {select} FROM {source}")


def connect_views(
    layout: Layout, labels: Mapping[str, Mapping[int, str]]
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection (time zone UTC) with the store's views."""
    try:
        import duckdb
    except ImportError:
        raise ImportError("SQL over the store needs DuckDB: pip install 'opslib[store]'") from None
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    _events_views(con, layout, labels)
    _snapshot_view(con, "devices", layout.snapshot_files("devices"), "device_id")
    con.execute(
        "CREATE VIEW device_latest AS SELECT * FROM devices "
        "WHERE snapshot_day = (SELECT max(snapshot_day) FROM devices)"
    )
    for what, key in (("products", "product_id"), ("categories", "category_id")):
        files = layout.snapshot_files(what)
        _snapshot_view(con, f"{what}_snapshots", files, key)
        con.execute(
            f"CREATE VIEW {what} AS SELECT * FROM {what}_snapshots "
            f"WHERE snapshot_day = (SELECT max(snapshot_day) FROM {what}_snapshots)"
        )
    return con
