"""The event cache on the real platform: equal to uncached reads, per platform/caller/query,
atomic, and managed by ``opslib cache``."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pytest
from pandas.testing import assert_frame_equal

from client.faults import Faults
from client.records import report
from opslib.client import _constants as C
from opslib.client import _event_cache
from opslib.client._event_cache import EventCache, cache_dir
from opslib.client._event_table import Stored, frame_to_columns
from opslib.client.frames.build import records_to_frame
from opslib.client.frames.schema import EVENT

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

DAY = 86_400_000


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _closed_range() -> tuple[int, int]:
    """Two whole UTC days that ended at least a day ago: every window closed."""
    today = _now_ms() - _now_ms() % DAY
    return today - 3 * DAY, today - DAY


def _reads(faults: Faults) -> list[tuple[int, int]]:
    return [
        (s.body["params"]["start"], s.body["params"]["end"])
        for s in faults.sent
        if s.path == "/device/query_record" and s.body and s.body["params"]["page_no"] == 1
    ]


def _windows(root: Path | None = None) -> list[Path]:
    return sorted((root or cache_dir()).rglob("*.parquet"))


def _a_device(platform: ServedPlatform) -> str:
    df = platform.connect().devices.list()
    return str(df.loc[df["user_id"].notna() & (df["user_id"] != ""), "device_id"].iloc[0])


# --- equal to an uncached read ---------------------------------------------------------


def test_cached_reads_equal_the_uncached_one_and_fetch_only_the_open_part(
    platform: ServedPlatform,
) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    end = _now_ms()
    start = end - 3 * DAY - 123  # not a whole second: its sliver comes from the platform
    uncached = client.events.list(start, end)
    assert len(uncached) > 0

    first = client.events.list(start, end, cache=True)
    assert_frame_equal(first, uncached)
    cutoff = _now_ms() - C.CACHE_CLOSED_MARGIN_MS
    closed = [w for w in _event_cache.windows(start, end, DAY) if w[1] <= cutoff]
    assert len(_windows()) == len(closed) >= 2

    faults.sent.clear()
    second = client.events.list(start, end, cache=True)
    assert_frame_equal(second, uncached)
    # the earliest open window: in the hour after midnight (UTC) yesterday's is open too
    open_from = min(w[0] for w in _event_cache.windows(start, end, DAY) if w[1] > cutoff)
    for lo, hi in _reads(faults):  # the open window, or the sub-second sliver at the start
        assert lo >= open_from or (lo == start and hi - lo < 1000), (lo, hi)


def test_cached_windows_text_kept_chunked_equals_the_uncached_read(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = platform.connect()
    start, end = _closed_range()
    uncached = client.events.list(start, end)
    client.events.list(start, end, cache=True)
    monkeypatch.setattr(C, "CHUNKED_STRINGS_MIN_ROWS", 1)  # each window counts as large
    cached = client.events.list(start, end, cache=True)
    assert_frame_equal(cached, uncached)
    assert pa.array(cached["event_id"].array).num_chunks == len(_windows()) == 2


def test_limit_and_filters_with_the_cache(platform: ServedPlatform) -> None:
    client = platform.connect()
    start, end = _closed_range()
    alarms = client.events.list(start, end, event_type="alarm")
    assert_frame_equal(client.events.list(start, end, event_type="alarm", cache=True), alarms)
    assert_frame_equal(client.events.list(start, end, event_type="alarm", cache=True), alarms)
    # limit cuts the cached rows; their properties.* columns are those of the whole range
    first3 = client.events.list(start, end, limit=3, cache=True)
    fixed = list(EVENT.dtypes())
    assert_frame_equal(first3[fixed], client.events.list(start, end, limit=3)[fixed])
    assert client.events.list(start, end, limit=0, cache=True).empty
    with pytest.raises(ValueError, match="page_size"):
        client.events.list(start, end, page_size=5000, cache=True)


def test_properties_absent_from_some_windows_keep_the_uncached_dtypes(
    fresh_platform: ServedPlatform,
) -> None:
    """Members typed differently per window join as pages do: ints with floats → Float64,
    text with numbers → object, a member missing from a window → missing values."""
    device = _a_device(fresh_platform)
    day0 = _now_ms() - _now_ms() % DAY - 3 * DAY
    noon = 12 * 3_600_000
    report(
        fresh_platform,
        device,
        [
            {"event_type": 3, "ts": day0 + noon, "properties": {"x": 1, "flag": True}},
            {"event_type": 3, "ts": day0 + DAY + noon, "properties": {"x": 2.5, "s": "a"}},
            {"event_type": 3, "ts": day0 + 2 * DAY + noon, "properties": {"s": 7, "n": None}},
            {"event_type": 3, "ts": day0 + 2 * DAY + noon + 1, "properties": {"obj": {"a": 1}}},
        ],
    )
    client = fresh_platform.connect()
    start, end = day0, day0 + 3 * DAY
    uncached = client.events.list(start, end, device_id=device)
    assert str(uncached["properties.x"].dtype) == "Float64"
    assert str(uncached["properties.flag"].dtype) == "boolean"
    assert uncached["properties.s"].dtype == object
    assert str(uncached["properties.obj.a"].dtype) == "Int64"
    for _ in range(2):  # cold, then warm
        assert_frame_equal(client.events.list(start, end, device_id=device, cache=True), uncached)
    # a window on its own, or a part of one, has its own columns and dtypes, as uncached
    hour = 3_600_000
    for lo, hi in [(start, start + DAY), (start + DAY + 13 * hour, end), (start, end - 13 * hour)]:
        for _ in range(2):
            assert_frame_equal(
                client.events.list(lo, hi, device_id=device, cache=True),
                client.events.list(lo, hi, device_id=device),
            )


def test_a_member_of_mixed_kinds_in_one_window_reads_back_as_uncached(
    fresh_platform: ServedPlatform,
) -> None:
    """A member that is text, a boolean, a number and a list within one window is kept as
    JSON text: missing where it was missing, each value (lists too) one object again."""
    device = _a_device(fresh_platform)
    day0 = _now_ms() - _now_ms() % DAY - 2 * DAY
    values: list[Any] = ["on", True, 2.5, [1, 2], [3, 4], {"k": [5]}]
    events = [
        {"event_type": 3, "ts": day0 + 3_600_000 * (i + 1), "properties": props}
        for i, props in enumerate([{"v": v} for v in values] + [{"other": 1}] * 3)
    ]
    report(fresh_platform, device, events)
    client = fresh_platform.connect()
    start, end = day0, day0 + DAY
    uncached = client.events.list(start, end, device_id=device)
    assert uncached["properties.v"].dtype == object
    # The seed may have given the device an event of its own that day: the rows reported
    # here are those with "v" or "other".
    mine = uncached["properties.v"].notna() | uncached["properties.other"].notna()
    assert uncached.loc[mine, "properties.v"].tolist() == [*values, None, None, None]
    for _ in range(2):  # cold, then from the window's JSON text
        cached = client.events.list(start, end, device_id=device, cache=True)
        assert_frame_equal(cached, uncached)
        assert cached["properties.v"].tolist() == uncached["properties.v"].tolist()


def test_sub_second_edges_are_exact(fresh_platform: ServedPlatform) -> None:
    """gmt_create is shown to the second: rows at .2 s and .7 s look alike in a frame, yet a
    range starting at .5 s holds only the second, on the platform and from the cache."""
    device = _a_device(fresh_platform)
    second = _now_ms() - _now_ms() % DAY - 2 * DAY + 12 * 3_600_000
    report(
        fresh_platform,
        device,
        [
            {"event_type": 5, "ts": second + 200, "properties": {"command": "early"}},
            {"event_type": 5, "ts": second + 700, "properties": {"command": "late"}},
        ],
    )
    client = fresh_platform.connect()
    for start, end in [(second + 500, second + DAY), (second - DAY, second + 500)]:
        uncached = client.events.list(start, end, device_id=device)
        for _ in range(2):
            assert_frame_equal(
                client.events.list(start, end, device_id=device, cache=True), uncached
            )
    tail = client.events.list(second + 500, second + DAY, device_id=device, cache=True)
    commands = tail["properties.command"].dropna().tolist()
    assert "late" in commands
    assert "early" not in commands


# --- never served to another -------------------------------------------------------------


def _poison(client: Any, start: int, end: int, **query: Any) -> None:
    """Cache the range for this client and query, then replace every window by one fake row."""
    client.events.list(start, end, cache=True, **query)
    store = EventCache(client.base_url, client.user_id, client.events._query(**_q(query)))
    for window in _event_cache.windows(start, end, DAY):
        fake = records_to_frame(
            [{"event_id": f"POISON-{window[0]}", "gmt_create": pd.Timestamp(window[0], unit="ms")}],
            EVENT,
        )
        fake["gmt_create"] = pd.Series([pd.Timestamp(window[0], unit="ms", tz="UTC")]).astype(
            "datetime64[ns, UTC]"
        )
        store.store(window, Stored(frame_to_columns(fake), raw=None))
    poisoned = client.events.list(start, end, cache=True, **query)
    assert poisoned["event_id"].str.startswith("POISON").all()  # the cache is what is read


def _q(query: dict[str, Any]) -> dict[str, Any]:
    return {
        "device_id": query.get("device_id"),
        "user_id": query.get("user_id"),
        "event_type": query.get("event_type"),
    }


def _assert_not_poisoned(client: Any, start: int, end: int, **query: Any) -> None:
    cached = client.events.list(start, end, cache=True, **query)
    assert not cached["event_id"].str.startswith("POISON").any()
    assert_frame_equal(cached, client.events.list(start, end, **query))


@pytest.mark.parametrize(
    ("poisoned", "other"),
    [
        ({}, {"event_type": "alarm"}),
        ({"event_type": "alarm"}, {"event_type": "online"}),
        ({}, {"device_id": "DEVICE"}),
        ({"device_id": "DEVICE"}, {"user_id": "USER"}),
    ],
)
def test_a_window_is_never_served_for_another_query(
    fresh_platform: ServedPlatform, poisoned: dict[str, Any], other: dict[str, Any]
) -> None:
    client = fresh_platform.connect()
    start, end = _closed_range()
    events = client.events.list(start, end)
    names = {"DEVICE": events["device_id"].iloc[0], "USER": events["user_id"].iloc[0]}
    poisoned = {k: names.get(v, v) for k, v in poisoned.items()}
    other = {k: names.get(v, v) for k, v in other.items()}
    _poison(client, start, end, **poisoned)
    _assert_not_poisoned(client, start, end, **other)


def test_a_window_is_never_served_to_another_caller(fresh_platform: ServedPlatform) -> None:
    """ops reading a user's events and that user reading its own send the same query."""
    user = fresh_platform.connect("user")
    ops = fresh_platform.connect("ops")
    start, end = _closed_range()
    assert ops.events._query(None, user.user_id, None) == user.events._query(None, None, None)
    _poison(ops, start, end, user_id=user.user_id)
    _assert_not_poisoned(user, start, end)


def test_a_window_is_never_served_for_another_platform(
    platform: ServedPlatform, fresh_platform: ServedPlatform
) -> None:
    start, end = _closed_range()
    _poison(platform.connect(), start, end)
    _assert_not_poisoned(fresh_platform.connect(), start, end)  # same data, another base_url


# --- atomic, robust -------------------------------------------------------------------------


def test_a_crash_while_writing_leaves_no_window(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow.parquet as pq

    real = pq.write_table

    def dies_halfway(table: Any, where: Any, **kwargs: Any) -> None:
        real(table, where, **kwargs)
        Path(where).write_bytes(Path(where).read_bytes()[:100])  # a torn write
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", dies_halfway)
    client = platform.connect()
    start, end = _closed_range()
    with pytest.raises(KeyboardInterrupt):
        client.events.list(start, end, cache=True)
    leftovers = [p.name for p in cache_dir().rglob("*") if p.is_file() and p.name != "key.json"]
    assert leftovers == []
    monkeypatch.setattr(pq, "write_table", real)
    assert_frame_equal(client.events.list(start, end, cache=True), client.events.list(start, end))
    assert len(_windows()) == 2


def test_a_full_disk_only_skips_caching(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import pyarrow.parquet as pq

    def full(table: Any, where: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    client = platform.connect()
    start, end = _closed_range()
    assert_frame_equal(client.events.list(start, end, cache=True), client.events.list(start, end))
    assert _windows() == []
    assert "could not cache the window" in caplog.text


def test_an_unreadable_window_is_fetched_again(platform: ServedPlatform) -> None:
    client = platform.connect()
    start, end = _closed_range()
    expected = client.events.list(start, end)
    client.events.list(start, end, cache=True)
    broken = _windows()[0]
    broken.write_bytes(b"not parquet")
    assert_frame_equal(client.events.list(start, end, cache=True), expected)
    assert broken.read_bytes()[:4] == b"PAR1"


def test_plan_cuts_at_whole_seconds_and_fetches_the_open_part() -> None:
    plan = _event_cache._plan(DAY + 1500, 4 * DAY + 250, 3 * DAY, DAY)
    assert plan == [
        ("direct", DAY + 1500, DAY + 2000, None),
        ("window", DAY + 2000, 2 * DAY, (DAY, 2 * DAY)),
        ("window", 2 * DAY, 3 * DAY, (2 * DAY, 3 * DAY)),
        ("direct", 3 * DAY, 4 * DAY + 250, None),
    ]
    assert _event_cache._plan(DAY + 100, DAY + 900, 5 * DAY, DAY) == [
        ("direct", DAY + 100, DAY + 900, None)
    ]


# --- where it lives, and the command -----------------------------------------------------


def test_opslib_cache_dir_moves_it(
    platform: ServedPlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPSLIB_CACHE_DIR", str(tmp_path / "elsewhere"))
    start, end = _closed_range()
    platform.connect().events.list(start, end, cache=True)
    assert len(_windows(tmp_path / "elsewhere")) == 2
    assert cache_dir() == tmp_path / "elsewhere"
    if os.name == "posix":
        assert (_windows(tmp_path / "elsewhere")[0].parent.stat().st_mode & 0o077) == 0
