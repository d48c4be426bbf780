"""Demo data as a platform of another dialect holds it: every stored code folded onto one
the dialect can say (``opslib server --dialect chint`` seeds this way).

Our core keeps its own codes (``opslib.enums``); a dialect whose server maps codes
(:attr:`Serving.codes_out <opslib.dialects.Serving.codes_out>` and ``codes_in``) answers
each of ours with one of its own, and several of ours may become one of its. Seeded data
folded by :func:`fold_onto_dialect` holds only codes that come back as themselves: our code
becomes ``codes_in[codes_out[code]]``, except that an event type whose kind under the
dialect differs from ours (an online event the dialect can only report as a fault) becomes
a property report. A platform that reports property reports and faults only then serves
no online, offline, command or firmware events, and analyses see what it would show.

>>> from opslib.dialects import Dialect
>>> folded = folded_codes(Dialect.named("chint"))
>>> folded["event_type"], folded["node_type"], folded["product_status"]
({1: 3, 2: 3, 5: 3, 6: 3}, {3: 1}, {2: 1})
>>> folded_codes(Dialect.named("vendor"))
{}
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from opslib.dialects import Dialect
from opslib.server.seed.scales import BUCKET_MS
from opslib.server.store import bulk

__all__ = ["STORED", "fold_onto_dialect", "folded_codes"]

STORED: dict[str, tuple[str, str]] = {
    "event_type": ("events", "event_type"),
    "net_type": ("products", "net_type"),
    "node_type": ("products", "node_type"),
    "encrypt_type": ("products", "encrypt_type"),
    "vendor_type": ("products", "vendor_type"),
    "popular": ("products", "popular"),
    "product_status": ("products", "status"),
    "user_status": ("users", "status"),
    "device_status": ("devices", "status"),
}
"""Where our core stores each coded field (a :attr:`Dialect.enums
<opslib.dialects.Dialect.enums>` key): table and column."""

_EVENT_TYPE = "event_type"


def folded_codes(dialect: Dialect) -> dict[str, dict[int, int]]:
    """Per coded field, our stored codes that change under ``dialect`` -> what they become
    (empty: the dialect says every code of ours as it is)."""
    ours = Dialect().event_kinds
    property_report = next(code for code, kind in ours.items() if kind == "property")
    out: dict[str, dict[int, int]] = {}
    for key, answered in dialect.serving.codes_out.items():
        read_back = dialect.serving.codes_in.get(key)
        if read_back is None or key not in STORED:
            continue  # the dialect cannot say it back: stored as it is, mapped when answered
        fold = {}
        for code, theirs in answered.items():
            if key == _EVENT_TYPE and dialect.event_kinds.get(theirs) != ours.get(code):
                target = property_report
            else:
                target = read_back.get(theirs, code)
            if target != code:
                fold[code] = target
        if fold:
            out[key] = fold
    return out


def fold_onto_dialect(db_path: str | Path, dialect: Dialect) -> dict[str, dict[int, int]]:
    """Fold the seeded data in ``db_path`` onto what ``dialect`` can say, and record the
    dialect in ``meta``; run once, right after seeding. Returns what was folded.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from opslib.server.seed import seed_database
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "chint.db"
    >>> _ = seed_database(db, scale="small")
    >>> sorted(fold_onto_dialect(db, Dialect.named("chint")))
    ['encrypt_type', 'event_type', 'node_type', 'product_status', 'vendor_type']
    """
    folded = folded_codes(dialect)
    conn = sqlite3.connect(db_path)
    try:
        with conn:
            for key, fold in folded.items():
                table, column = STORED[key]
                cases = " ".join("WHEN ? THEN ?" for _ in fold)
                marks = ", ".join("?" for _ in fold)
                values = [v for pair in fold.items() for v in pair]
                conn.execute(
                    f"UPDATE {table} SET {column} = CASE {column} {cases} END"
                    f" WHERE {column} IN ({marks})",
                    (*values, *fold),
                )
            if _EVENT_TYPE in folded:
                bulk.rebuild_event_counts(conn, bucket_ms=BUCKET_MS)
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('dialect', ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (dialect.name,),
            )
    finally:
        conn.close()
    return folded
