"""The local store against the real platform: a sync holds exactly the platform's rows,
moves by watermark, picks up late reports, survives a crash at any step, reads back
equal to ``client.events.list``, and answers SQL through DuckDB."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest
from client.faults import Faults
from client.records import report
from pandas.testing import assert_frame_equal

import opslib
from opslib.cli import main
from opslib.store import Store, StoreLocked, StoreMismatch, sync
from opslib.store import _sync as sync_module
from opslib.store._layout import DAY_MS, Layout

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def a_device(client: Any) -> str:
    df = client.devices.list()
    return str(df.loc[df["user_id"].notna() & (df["user_id"] != ""), "device_id"].iloc[0])


def stored_rows(path: Path) -> pd.DataFrame:
    con = Store(path).connect()
    return con.sql("SELECT event_id FROM events").df()


def assert_holds_platform(client: Any, path: Path, since: int, until: int) -> None:
    """The store holds exactly the platform's rows of [since, until), each once."""
    platform_rows = client.events.list(since, until)
    mine = Store(path).events(since, until)
    assert_frame_equal(mine, platform_rows)
    ids = stored_rows(path)["event_id"]
    assert ids.is_unique
    assert set(ids) >= set(platform_rows["event_id"])


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "store"


# -- sync and read back ------------------------------------------------------------------


def test_a_sync_reads_back_equal_to_events_list(platform: ServedPlatform, store: Path) -> None:
    client = platform.connect()
    result = sync(client, since="-4d", store=store, progress=False)
    assert result.rows > 0
    assert result.snapshot_day is not None
    assert len(result.windows) == 5  # 4 whole days and today up to now
    st = Store(store)
    now = now_ms()
    device = a_device(client)
    user = str(client.devices.list()["user_id"].dropna().iloc[0])
    for start, end, filters in [
        (now - 3 * DAY_MS - 12_345_000, now - 1000, {}),  # a part of the first day
        (now - 4 * DAY_MS, now, {"event_type": "alarm"}),
        (now - 4 * DAY_MS, now, {"event_type": 3}),
        (now - 4 * DAY_MS, now, {"device_id": device}),
        (now - 4 * DAY_MS, now, {"user_id": user}),
        (now - 10 * DAY_MS, now - 9 * DAY_MS, {}),  # nothing there: the empty frame
    ]:
        expected = client.events.list(start, end, **filters)
        got = st.events(start, end, **filters)
        assert_frame_equal(got, expected)
        assert got.attrs == expected.attrs


def test_a_second_sync_reads_only_the_late_window_and_today(
    platform: ServedPlatform, store: Path
) -> None:
    client = platform.connect()
    sync(client, since="-4d", store=store, progress=False)
    first = stored_rows(store)
    faults = Faults()
    again = sync(platform.connect(transport=faults), store=store, progress=False)
    days = [w.day for w in again.windows]
    today = pd.Timestamp.now(tz="UTC").floor("D")
    assert days == [(today - pd.Timedelta(days=n)).strftime("%Y-%m-%d") for n in (2, 1, 0)]
    reads = [
        s.body["params"]
        for s in faults.sent
        if s.path == "/device/query_record" and s.body and s.body["params"]["page_no"] == 1
    ]
    earliest = min(p["start"] for p in reads)
    assert earliest >= (today - pd.Timedelta(days=2)).value // 1_000_000
    assert sorted(stored_rows(store)["event_id"]) == sorted(first["event_id"])  # no duplicates
    info = Layout.open(store).queries["fleet"]
    assert info.watermark is not None
    assert info.watermark > now_ms() - 60_000


def test_a_late_event_appears_after_the_next_sync(
    fresh_platform: ServedPlatform, store: Path
) -> None:
    client = fresh_platform.connect()
    device = a_device(client)
    sync(client, since="-4d", store=store, progress=False)
    yesterday = now_ms() - DAY_MS
    long_ago = now_ms() - 3 * DAY_MS - 3_600_000
    report(
        fresh_platform,
        device,
        [
            {"event_type": 3, "ts": yesterday, "properties": {"late": 1}},
            {"event_type": 3, "ts": long_ago, "properties": {"late": 2}},
        ],
    )
    sync(client, store=store, progress=False)
    late = Store(store).events("-5d", device_id=device)
    assert late["properties.late"].dropna().tolist() == [1]  # within the 2-day late window
    sync(client, store=store, late_window="4d", progress=False)
    late = Store(store).events("-5d", device_id=device)
    assert sorted(late["properties.late"].dropna().tolist()) == [1, 2]
    assert_holds_platform(client, store, now_ms() - 4 * DAY_MS, now_ms())


def test_a_crash_at_any_step_leaves_the_platform_rows_after_the_next_sync(
    fresh_platform: ServedPlatform, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure after each possible step (a day written, its state not yet; the state
    written, the next day not yet), then a plain sync: exactly the platform's rows. No late
    window: a day the state claims and no file holds would stay missing."""
    client = fresh_platform.connect()
    since = pd.Timestamp.now(tz="UTC").floor("D") - pd.Timedelta(days=4)
    real_write, real_save = sync_module.write_day, Layout.save_state

    class Crash(BaseException):
        pass

    crashed = 0
    for i, step in enumerate((2, 1, 2, 1, 3, 1)):
        calls = {"n": 0}

        def failing(*args: Any, step: int = step, calls: dict[str, int] = calls) -> None:
            calls["n"] += 1
            if calls["n"] == step:
                raise Crash
            real_write(*args)

        monkeypatch.setattr(sync_module, "write_day", failing)
        try:
            sync(client, since=since, store=store, progress=False, late_window=0)
        except Crash:
            crashed += 1
        monkeypatch.setattr(sync_module, "write_day", real_write)
        if i % 2:  # a new event meanwhile, into a day already stored
            report(fresh_platform, a_device(client), [{"event_type": 1, "ts": now_ms() - 5000}])
    assert crashed >= 4
    saves = {"n": 0}

    def failing_save(self: Layout) -> None:
        saves["n"] += 1
        if saves["n"] == 2:
            raise Crash
        real_save(self)

    monkeypatch.setattr(Layout, "save_state", failing_save)
    with pytest.raises(Crash):
        sync(client, store=store, progress=False, late_window=0)
    monkeypatch.setattr(Layout, "save_state", real_save)
    sync(client, since=since, store=store, progress=False, late_window=0)
    assert not list(store.rglob("*.tmp"))
    assert_holds_platform(client, store, since.value // 1_000_000, now_ms())


def test_dry_run_reads_no_page_and_writes_nothing(
    platform: ServedPlatform, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    result = sync(client, since="-4d", store=store, dry_run=True)
    assert not store.exists()
    assert len(result.windows) == 5
    assert result.estimated_rows["fleet"] > 0
    sizes = [
        s.body["params"]["page_size"]
        for s in faults.sent
        if s.path == "/device/query_record" and s.body
    ]
    assert sizes == [1]  # one request of one row counts them
    truth = len(client.events.list(result.windows[0].lo, result.windows[-1].hi))
    assert result.estimated_rows["fleet"] == truth


def test_bad_input_is_refused_naming_the_field(platform: ServedPlatform, store: Path) -> None:
    client = platform.connect()
    with pytest.raises(ValueError, match="late_window: 'soon'"):
        sync(client, since="-1d", store=store, late_window="soon")
    with pytest.raises(ValueError, match="late_window: '-1d' is negative"):
        sync(client, since="-1d", store=store, late_window="-1d")
    with pytest.raises(ValueError, match="since: no events of the fleet query"):
        sync(client, store=store)
    with pytest.raises(ValueError, match="what: 'everything'"):
        sync(client, what="everything", store=store)
    assert not (store / "events").exists()


def test_one_writer_at_a_time(
    platform: ServedPlatform, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("opslib.store._layout.LOCK_TIMEOUT_S", 0.2)
    layout = Layout.open(store)
    with layout.writer(), pytest.raises(StoreLocked, match="another process"):
        sync(platform.connect(), since="-1d", store=store, progress=False)


def test_a_store_keeps_one_platform_and_caller(platform: ServedPlatform, store: Path) -> None:
    sync(platform.connect(), what="devices", store=store, progress=False)
    with pytest.raises(StoreMismatch, match="--store PATH"):
        sync(platform.connect("user"), since="-1d", store=store, progress=False)


# -- snapshots, SQL, Arrow, Dask ---------------------------------------------------------


def test_device_snapshots_give_status_per_day(platform: ServedPlatform, store: Path) -> None:
    client = platform.connect()
    for days_ago in (2, 1, 0):
        moment = pd.Timestamp.now(tz="UTC") - pd.Timedelta(days=days_ago)
        sync(client, what="devices", store=store, now=moment)
    con = opslib.store.connect(store)
    per_day = con.sql(
        "SELECT snapshot_day, status_name, count(*) AS n FROM devices GROUP BY ALL ORDER BY ALL"
    ).df()
    assert per_day["snapshot_day"].nunique() == 3
    fleet = client.devices.list()
    latest = con.sql("SELECT device_id, status_name FROM device_latest").df()
    assert sorted(latest["device_id"]) == sorted(fleet["device_id"])
    assert per_day.groupby("snapshot_day")["n"].sum().tolist() == [len(fleet)] * 3
    products = con.execute("SELECT count(*) FROM products").fetchone()
    assert products == (len(client.products.list()),)
    assert con.execute("SELECT count(*) FROM categories").fetchone() == (
        len(client.products.categories()),
    )


def test_sql_views_arrow_and_dask_read_the_same_rows(platform: ServedPlatform, store: Path) -> None:
    client = platform.connect()
    sync(client, since="-4d", store=store, progress=False)
    expected = client.events.list("-5d")
    con = opslib.store.connect(store)
    events = con.sql("SELECT * FROM events ORDER BY gmt_create, event_id").df()
    assert len(events) == len(expected)
    assert str(events["gmt_create"].dtype).endswith("UTC]")
    assert isinstance(events["event_type_name"].dtype, pd.CategoricalDtype)
    assert list(events.columns[:7]) == list(expected.columns[:7])
    per_type = con.sql("SELECT event_type_name, count(*) n FROM events GROUP BY 1").df()
    assert dict(zip(per_type.event_type_name.astype(str), per_type.n, strict=True)) == (
        expected["event_type_name"].astype(str).value_counts().to_dict()
    )
    table = Store(store).arrow("-5d", event_type="alarm")
    alarms = expected[expected["event_type_name"] == "alarm"]
    assert table.column("event_id").to_pylist() == alarms["event_id"].tolist()
    ddf = Store(store).to_dask("-5d")
    assert ddf.npartitions == 5
    computed = ddf.compute(scheduler="sync").reset_index(drop=True)
    assert_frame_equal(computed, Store(store).events("-5d"), check_dtype=True)


def _reach(platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands reach ``platform`` as its ops account (OPSLIB_* variables)."""
    for name, value in {
        "OPSLIB_BASE_URL": platform.base_url,
        "OPSLIB_CLIENT_ID": platform.client_id,
        "OPSLIB_CLIENT_SECRET": platform.client_secret,
        "OPSLIB_AREA_CODE": platform.area_code,
        "OPSLIB_PHONE": platform.ops_phone,
        "OPSLIB_PASSWORD": platform.ops_password,
    }.items():
        monkeypatch.setenv(name, value)


def test_the_commands(
    platform: ServedPlatform, store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    _reach(platform, monkeypatch)
    monkeypatch.setenv("OPSLIB_STORE", str(store))
    assert main(["sync", "events", "--since", "-2d", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "fleet: 3 days" in out
    assert "nothing was written" in out
    assert main(["sync", "--since", "-2d", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "events in 3 days, " in out
    assert "snapshot of" in out
    two = [str(d) for d in platform.connect().devices.list(limit=2)["device_id"]]
    devices = ["--device", two[0], "--device", two[1]]
    synced = main(["sync", "events", "--since", "-2d", "--no-progress", *devices])
    assert synced == 0
    assert "events in 3 days of 2 queries, " in capsys.readouterr().out  # not "6 days"
    assert main(["store", "info"]) == 0
    out = capsys.readouterr().out
    assert "fleet:" in out
    assert "rows in 3 days" in out
    assert "synced" in out
    assert main(["sql", "SELECT event_type_name, count(*) AS n FROM events GROUP BY 1"]) == 0
    assert "event_type_name" in capsys.readouterr().out
    for name in ("out.csv", "out.parquet"):
        sql = "SELECT device_id, count(*) AS n FROM events GROUP BY 1 ORDER BY 1"
        assert main(["sql", sql, "--out", str(tmp_path / name)]) == 0
    csv = pd.read_csv(tmp_path / "out.csv")
    parquet = pd.read_parquet(tmp_path / "out.parquet")
    assert csv["n"].tolist() == parquet["n"].tolist()
    assert csv["n"].sum() > 0
    assert main(["sql", "SELECT nope FROM events"]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["sql", "SELECT 1", "--out", str(tmp_path / "x.xlsx")]) == 2
    capsys.readouterr()
    assert main(["sql", "SELECT 1", "--max-rows", "-5"]) == 2
    assert capsys.readouterr().err == "opslib sql: --max-rows -5: give 1 or more\n"
    monkeypatch.delenv("OPSLIB_BASE_URL")
    assert main(["sync"]) == 2
    assert "--profile" in capsys.readouterr().err


def test_a_store_or_out_file_that_cannot_be_written_is_one_line_not_a_traceback(
    platform: ServedPlatform, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    _reach(platform, monkeypatch)
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main(["sync", "--since", "-1d", "--no-progress", "--store", str(a_file / "s")]) == 2
    assert capsys.readouterr().err == (
        f"opslib sync: the store file {a_file / 's' / 'store.json'} cannot be read ([Errno 20] "
        f"Not a directory: '{a_file / 's' / 'store.json'}')\n"
    )
    assert main(["sync", "--since", "-1d", "--no-progress", "--store", "/proc/opslib-store"]) == 2
    assert (
        capsys.readouterr().err
        == "opslib sync: cannot write /proc/opslib-store: No such file or directory\n"
    )
    assert main(["sql", "SELECT 1", "--out", str(tmp_path / "missing" / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"opslib sql: cannot write {tmp_path / 'missing' / 'x.csv'}: "), err
    assert not (tmp_path / "missing").exists()
