"""seed_database: counts, determinism, refusal, and the shapes the platform relies on."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opslib.server import demo, store
from opslib.server.security import demo_device_secret, sha256_hex, verify_password
from opslib.server.seed import SCALES, DatabaseNotEmptyError, seed_command, seed_database

UNTIL = dt.datetime(2025, 6, 1, 12, 0, 0, tzinfo=dt.UTC)
UNTIL_MS = 1_748_779_200_000
TABLES = (
    "meta",
    "clients",
    "users",
    "settings",
    "categories",
    "products",
    "devices",
    "bindings",
    "events",
    "event_counts",
)


def _dump(path: Path) -> dict[str, str]:
    """A digest of every table's full content, in a canonical order."""
    conn = sqlite3.connect(path)
    try:
        out = {}
        for table in TABLES:
            width = len(conn.execute(f"PRAGMA table_info({table})").fetchall())
            order = ", ".join(str(i + 1) for i in range(width))
            rows = conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
            out[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
        return out
    finally:
        conn.close()


@pytest.fixture(scope="module")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    path = tmp_path_factory.mktemp("seed") / "small.db"
    result = seed_database(path, scale="small", seed_value=42, until=UNTIL)
    return path, result


@pytest.fixture
def conn(small_db: tuple[Path, dict[str, object]]) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(small_db[0])
    yield c
    c.close()


def _one(conn: sqlite3.Connection, sql: str, *args: object) -> object:
    return conn.execute(sql, args).fetchone()[0]


# --------------------------------------------------------------------------- counts, cost


def test_small_scale_writes_the_declared_counts(tmp_path: Path) -> None:
    result = seed_database(tmp_path / "s.db", scale="small", until=UNTIL)
    scale = SCALES["small"]
    assert result["categories"] == scale.categories
    assert result["products"] == scale.products
    assert result["users"] == scale.users
    assert result["settings"] == scale.users
    assert result["devices"] == scale.devices
    assert result["events"] == scale.events
    assert result["clients"] == 1
    assert result["until"] == "2025-06-01T12:00:00+00:00"
    assert isinstance(result["seconds"], float)


def test_argon2_runs_once_per_distinct_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opslib.server.seed import people

    calls: list[str] = []
    hash_secret = people.hash_secret

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append("hash")
        return hash_secret(*args, **kwargs)

    monkeypatch.setattr(people, "hash_secret", counted)
    result = seed_database(tmp_path / "s.db", scale="small", until=UNTIL)
    assert result["users"] == SCALES["small"].users  # 20 users with 3 passwords
    assert len(calls) == 3  # argon2 is ~50 ms a hash: the seed's cost, whatever the scale


def test_counts_returned_match_the_tables(
    small_db: tuple[Path, dict[str, object]], conn: sqlite3.Connection
) -> None:
    _, result = small_db
    for table in ("users", "settings", "categories", "products", "devices", "bindings"):
        assert result[table] == _one(conn, f"SELECT COUNT(*) FROM {table}")
    assert result["events"] == _one(conn, "SELECT COUNT(*) FROM events")


def test_schema_and_event_indexes_exist(conn: sqlite3.Connection) -> None:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"events_order", "events_type", "events_device", "events_user"} <= names
    assert _one(conn, "SELECT value FROM meta WHERE key = 'schema_version'") == str(
        store.SCHEMA_VERSION
    )
    assert _one(conn, "PRAGMA journal_mode") == "wal"


# --------------------------------------------------------------------------- determinism


def test_same_inputs_give_identical_tables(tmp_path: Path) -> None:
    seed_database(tmp_path / "a.db", scale="small", seed_value=7, until=UNTIL)
    seed_database(tmp_path / "b.db", scale="small", seed_value=7, until=UNTIL)
    assert _dump(tmp_path / "a.db") == _dump(tmp_path / "b.db")


def test_a_different_seed_value_differs(tmp_path: Path) -> None:
    seed_database(tmp_path / "a.db", scale="small", seed_value=1, until=UNTIL)
    seed_database(tmp_path / "b.db", scale="small", seed_value=2, until=UNTIL)
    a, b = _dump(tmp_path / "a.db"), _dump(tmp_path / "b.db")
    for table in ("users", "devices", "bindings", "events"):
        assert a[table] != b[table], table
    assert a["categories"] == b["categories"]  # the categories' names are fixed


def test_events_end_before_until_and_span_the_window(conn: sqlite3.Connection) -> None:
    lo, hi = conn.execute("SELECT MIN(ts), MAX(ts) FROM events").fetchone()
    window = SCALES["small"].days * 86_400_000
    assert UNTIL_MS - window <= lo < UNTIL_MS - window + 12 * 3_600_000
    assert UNTIL_MS - 12 * 3_600_000 < hi < UNTIL_MS


# --------------------------------------------------------------------------- refusal


def test_refuses_to_reseed_and_leaves_the_database_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.db"
    seed_database(path, scale="small", seed_value=3, until=UNTIL)
    before_bytes = path.read_bytes()
    before = _dump(path)
    with pytest.raises(DatabaseNotEmptyError, match="already has 20 users"):
        seed_database(path, scale="small", seed_value=4, until=UNTIL)
    assert seed_command(path, scale="small", seed_value=4, until="2025-06-01") == 1
    assert "already has" in capsys.readouterr().err
    assert path.read_bytes() == before_bytes
    assert _dump(path) == before


def test_seeds_a_database_whose_schema_exists_but_is_empty(tmp_path: Path) -> None:
    from opslib.server import store

    path = tmp_path / "empty.db"
    c = store.connect(path)
    store.init_schema(c)
    c.close()
    result = seed_database(path, scale="small", until=UNTIL)
    assert result["users"] == SCALES["small"].users


def test_unknown_scale_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown scale"):
        seed_database(tmp_path / "x.db", scale="huge")
    assert not (tmp_path / "x.db").exists()


def test_until_defaults_to_now_truncated_to_the_second(tmp_path: Path) -> None:
    before = int(time.time())
    result = seed_database(tmp_path / "n.db", scale="small")
    until = dt.datetime.fromisoformat(str(result["until"]))
    assert until.microsecond == 0
    assert before <= until.timestamp() <= time.time()


# --------------------------------------------------------------------------- accounts, secrets


def test_demo_accounts_and_client(conn: sqlite3.Connection) -> None:
    rows = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT phone, role, area_code, password_hash, status FROM users WHERE phone IN "
            "(?, ?, ?)",
            (demo.OPS_PHONE, demo.ADMIN_PHONE, demo.USER_PHONE),
        )
    }
    assert rows[demo.OPS_PHONE][0] == 2
    assert rows[demo.ADMIN_PHONE][0] == 3
    assert rows[demo.USER_PHONE][0] == 1
    for phone, password in (
        (demo.OPS_PHONE, demo.OPS_PASSWORD),
        (demo.ADMIN_PHONE, demo.ADMIN_PASSWORD),
        (demo.USER_PHONE, demo.USER_PASSWORD),
    ):
        _role, area, pw_hash, status = rows[phone]
        assert area == demo.AREA_CODE
        assert status == 1
        assert verify_password(pw_hash, password)
    client = conn.execute("SELECT secret_hash FROM clients WHERE client_id = ?", (demo.CLIENT_ID,))
    assert client.fetchone()[0] == sha256_hex(demo.CLIENT_SECRET)
    phones = [r[0] for r in conn.execute("SELECT phone FROM users WHERE phone LIKE '5551%'")]
    assert sorted(phones) == [str(5_551_000_000 + n) for n in range(len(phones))]


def test_passwords_are_argon2id_and_no_plain_secret_is_stored(
    small_db: tuple[Path, dict[str, object]], conn: sqlite3.Connection
) -> None:
    hashes = [r[0] for r in conn.execute("SELECT password_hash FROM users")]
    assert all(h.startswith("$argon2id$") for h in hashes)
    assert len(set(hashes)) == 3  # one hash per distinct demo password (documented)
    raw = small_db[0].read_bytes()
    secrets = [demo.CLIENT_SECRET, demo.OPS_PASSWORD, demo.ADMIN_PASSWORD, demo.USER_PASSWORD]
    device_ids = [r[0] for r in conn.execute("SELECT device_id FROM devices")]
    secrets += [demo_device_secret(d) for d in device_ids[:20]]
    for secret in secrets:
        assert secret.encode() not in raw
    for device_id, secret_hash in conn.execute("SELECT device_id, secret_hash FROM devices"):
        assert secret_hash == sha256_hex(demo_device_secret(device_id))


def test_every_user_has_a_settings_row(conn: sqlite3.Connection) -> None:
    assert _one(conn, "SELECT COUNT(*) FROM users u LEFT JOIN settings s USING (user_id) "
                "WHERE s.user_id IS NULL") == 0  # fmt: skip


# --------------------------------------------------------------------------- shapes


def test_never_online_devices_have_no_events_and_null_last_seen(conn: sqlite3.Connection) -> None:
    never = [r[0] for r in conn.execute("SELECT device_id FROM devices WHERE status = 0")]
    assert never
    for device_id in never:
        assert _one(conn, "SELECT COUNT(*) FROM events WHERE device_id = ?", device_id) == 0
        assert (
            _one(conn, "SELECT gmt_last_seen FROM devices WHERE device_id = ?", device_id) is None
        )
        assert _one(conn, "SELECT properties FROM devices WHERE device_id = ?", device_id) == "{}"
    assert (
        _one(conn, "SELECT COUNT(*) FROM devices WHERE status != 0 AND gmt_last_seen IS NULL") == 0
    )


def test_last_seen_is_the_last_event(conn: sqlite3.Connection) -> None:
    bad = _one(
        conn,
        "SELECT COUNT(*) FROM devices d JOIN (SELECT device_id, MAX(ts) AS m FROM events "
        "GROUP BY device_id) e USING (device_id) WHERE d.gmt_last_seen != e.m",
    )
    assert bad == 0


def test_event_counts_sum_to_the_events(conn: sqlite3.Connection) -> None:
    assert _one(conn, "SELECT SUM(n) FROM event_counts") == _one(
        conn, "SELECT COUNT(*) FROM events"
    )
    mismatched = _one(
        conn,
        "SELECT COUNT(*) FROM event_counts c JOIN (SELECT ts / 600000 AS b, event_type, "
        "COUNT(*) AS n FROM events GROUP BY 1, 2) e ON e.b = c.bucket "
        "AND e.event_type = c.event_type WHERE e.n != c.n",
    )
    assert mismatched == 0


def test_each_device_has_at_most_one_owner_and_a_few_are_stock(conn: sqlite3.Connection) -> None:
    assert _one(conn, "SELECT MAX(k) FROM (SELECT COUNT(*) AS k FROM bindings WHERE owned = 1 "
                "GROUP BY device_id)") == 1  # fmt: skip
    unbound = _one(
        conn, "SELECT COUNT(*) FROM devices WHERE device_id NOT IN (SELECT device_id FROM bindings)"
    )
    assert unbound >= 1
    shared_without_owner = _one(
        conn,
        "SELECT COUNT(*) FROM bindings s WHERE owned = 0 AND NOT EXISTS (SELECT 1 FROM bindings o "
        "WHERE o.device_id = s.device_id AND o.owned = 1)",
    )
    assert shared_without_owner == 0
    assert _one(conn, "SELECT COUNT(*) FROM bindings WHERE owned = 0") >= 1


def test_every_event_belongs_to_the_device_owner(conn: sqlite3.Connection) -> None:
    bad = _one(
        conn,
        "SELECT COUNT(*) FROM events e LEFT JOIN bindings b ON b.device_id = e.device_id "
        "AND b.owned = 1 WHERE b.user_id IS NULL OR b.user_id != e.user_id",
    )
    assert bad == 0


def test_event_ids_are_unique_and_properties_are_json_objects(conn: sqlite3.Connection) -> None:
    ids = [r[0] for r in conn.execute("SELECT event_id FROM events")]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("evt-") and len(i) == 20 for i in ids)
    for props, code, etype in conn.execute("SELECT properties, code, event_type FROM events"):
        assert isinstance(json.loads(props), dict)
        assert len(props) <= 8192
        assert len(code) <= 32
        assert (code != "") == (etype == 4)
    for (props,) in conn.execute("SELECT properties FROM devices"):
        assert isinstance(json.loads(props), dict)


def test_device_status_follows_its_events(conn: sqlite3.Connection) -> None:
    """Applying protocol §6.19 to each device's events gives its stored status."""
    status = dict(conn.execute("SELECT device_id, status FROM devices").fetchall())
    implied: dict[str, int] = {}
    for device_id, etype, code in conn.execute(
        "SELECT device_id, event_type, code FROM events ORDER BY ts, event_id"
    ):
        if etype == 1:
            implied[device_id] = 1
        elif etype == 2:
            implied[device_id] = 2
        elif etype == 4 and code.startswith("F"):
            implied[device_id] = 3
    for device_id, s in implied.items():
        assert status[device_id] == s, device_id


def test_field_formats_follow_the_protocol(conn: sqlite3.Connection) -> None:
    import re

    mac = re.compile(r"^[0-9A-F]{2}(:[0-9A-F]{2}){5}$")
    for row in conn.execute(
        "SELECT device_id, mac_addr, sdk_version, version, net_addr, status FROM devices"
    ):
        device_id, mac_addr, sdk, version, net_addr, status = row
        assert re.fullmatch(r"dev-[0-9a-f]{12}", device_id)
        assert mac.match(mac_addr)
        assert 1 <= len(sdk) <= 32
        assert 1 <= len(version) <= 32
        assert len(net_addr) <= 64
        assert status in (0, 1, 2, 3)
    for row in conn.execute(
        "SELECT net_type, node_type, encrypt_type, status, popular, vendor_type FROM products"
    ):
        net, node, enc, status, popular, vendor = row
        assert net in range(1, 6)
        assert node in (1, 2, 3)
        assert enc in (0, 1, 2)
        assert status in (0, 1, 2)
        assert popular in (0, 1)
        assert 0 <= vendor <= 99
    assert _one(conn, "SELECT COUNT(*) FROM products WHERE node_type = 2") >= 1
    assert _one(conn, "SELECT COUNT(*) FROM products WHERE node_type = 3") >= 1
    bad_sub = _one(
        conn,
        "SELECT COUNT(*) FROM bindings b JOIN devices d USING (device_id) JOIN products p "
        "USING (product_id) WHERE b.is_sub_device != (p.node_type = 3)",
    )
    assert bad_sub == 0
    bad_cat = _one(
        conn,
        "SELECT COUNT(*) FROM devices d JOIN products p USING (product_id) "
        "WHERE d.category_id != p.category_id",
    )
    assert bad_cat == 0


def test_demo_user_has_about_ten_devices_with_events(conn: sqlite3.Connection) -> None:
    user_id = _one(conn, "SELECT user_id FROM users WHERE phone = ?", demo.USER_PHONE)
    owned = _one(conn, "SELECT COUNT(*) FROM bindings WHERE user_id = ? AND owned = 1", user_id)
    assert owned == 10
    assert _one(conn, "SELECT COUNT(*) FROM bindings WHERE user_id = ? AND owned = 0", user_id) >= 2
    assert _one(conn, "SELECT COUNT(*) FROM events WHERE user_id = ?", user_id) > 0
    gateways = _one(
        conn,
        "SELECT COUNT(*) FROM bindings b JOIN devices d USING (device_id) JOIN products p "
        "USING (product_id) WHERE b.user_id = ? AND b.owned = 1 AND p.node_type = 2",
        user_id,
    )
    assert gateways >= 1


def test_event_mix_has_every_type(conn: sqlite3.Connection) -> None:
    counts = dict(conn.execute("SELECT event_type, COUNT(*) FROM events GROUP BY 1").fetchall())
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert counts[3] > sum(counts.values()) / 2  # property reports dominate
    for (props,) in conn.execute("SELECT properties FROM events WHERE event_type = 6"):
        upgrade = json.loads(props)
        assert set(upgrade) == {"from", "to", "version"}
        assert upgrade["from"] != upgrade["to"]
        assert upgrade["version"] == upgrade["to"]
    # A device's firmware is the target of its last upgrade.
    bad = _one(
        conn,
        "SELECT COUNT(*) FROM devices d JOIN events e USING (device_id) WHERE e.event_type = 6 "
        "AND d.version != json_extract(e.properties, '$.to')",
    )
    assert bad == 0


# --------------------------------------------------------------------------- realism (mid-size)


@pytest.fixture(scope="module")
def medium_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    """Six categories, 400 devices and 40,000 events over a week: enough for shapes."""
    from opslib.server.seed import Scale

    mp = pytest.MonkeyPatch()
    mp.setitem(SCALES, "medium", Scale("medium", 6, 20, 60, 400, 40_000, 7))
    path = tmp_path_factory.mktemp("seed") / "medium.db"
    try:
        seed_database(path, scale="medium", seed_value=11, until=UNTIL)
    finally:
        mp.undo()
    c = sqlite3.connect(path)
    yield c
    c.close()


def test_day_night_cycle(medium_db: sqlite3.Connection) -> None:
    by_hour = dict(
        medium_db.execute(
            "SELECT ((ts / 3600000) - 5 + 24) % 24 AS h, COUNT(*) FROM events GROUP BY h"
        ).fetchall()
    )
    evening = sum(by_hour[h] for h in (18, 19, 20))
    early = sum(by_hour[h] for h in (5, 6, 7))
    assert evening > 2 * early


def test_a_few_noisy_devices_make_a_large_share(medium_db: sqlite3.Connection) -> None:
    total = _one(medium_db, "SELECT COUNT(*) FROM events")
    top = [
        n / total
        for (n,) in medium_db.execute(
            "SELECT COUNT(*) AS n FROM events GROUP BY device_id ORDER BY n DESC LIMIT 6"
        )
    ]
    assert sum(top[:5]) > 0.1  # about five devices with 2-5 % each
    assert top[0] < 0.06


def test_status_mix_and_downtime_gaps(medium_db: sqlite3.Connection) -> None:
    status = dict(medium_db.execute("SELECT status, COUNT(*) FROM devices GROUP BY 1").fetchall())
    n = sum(status.values())
    assert status[1] > 0.5 * n
    assert 0.1 * n < status[2] < 0.4 * n
    assert 0 < status[3] < 0.1 * n
    assert 0.02 * n <= status[0] <= 0.05 * n
    # Nothing between an offline event and the next online event of the same device.
    rows = medium_db.execute(
        "SELECT device_id, event_type, code FROM events ORDER BY device_id, ts, event_id"
    ).fetchall()
    down: str | None = None
    for device_id, etype, code in rows:
        if down is not None and device_id == down:
            assert etype == 1, (device_id, etype)
            down = None
        elif device_id != down:
            down = None
        if etype == 2 or (etype == 4 and code.startswith("F")):
            down = device_id


def test_most_devices_run_the_latest_firmware(medium_db: sqlite3.Connection) -> None:
    rows = medium_db.execute(
        "SELECT d.category_id, d.version, COUNT(*) FROM devices d GROUP BY 1, 2"
    ).fetchall()
    latest: dict[int, tuple[str, int]] = {}
    totals: dict[int, int] = {}
    for cat, version, n in rows:
        key = tuple(int(x) for x in version.split("."))
        if cat not in latest or key > tuple(int(x) for x in latest[cat][0].split(".")):
            latest[cat] = (version, n)
        totals[cat] = totals.get(cat, 0) + n
    on_latest = sum(n for _, n in latest.values())
    assert on_latest > 0.5 * sum(totals.values())
    assert on_latest < sum(totals.values())  # a tail on older releases
