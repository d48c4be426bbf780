"""The bulk-read conversion: moments from ``ts``, members typed once for the whole read
(``defer``), the exact order check of ``finish``, and the collector's threshold."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from pandas.testing import assert_frame_equal

from opslib.client import _constants as C
from opslib.client import _schemas as S
from opslib.client._frames import (
    _spread_text,
    build_frame,
    finish,
    join_order,
    page_columns,
    records_to_frame,
)

SECOND = 1_714_521_600_000  # 2024-05-01 00:00:00 UTC


def event(i: int, ts: int | None = None, **over: Any) -> dict[str, Any]:
    ts = SECOND + i * 250 if ts is None else ts
    record: dict[str, Any] = {
        "device_id": f"d-{i % 3}",
        "user_id": "u-1",
        "event_id": f"e-{i:04d}",
        "event_type": 3,
        "properties": {"temperature": 20.5 + i, "humidity": 40 + i},
        "code": "",
        "gmt_create": pd.Timestamp(ts // 1000 * 1000, unit="ms").strftime("%Y-%m-%d %H:%M:%S"),
        "ts": ts,
    }
    record.update(over)
    return record


# --- moments from ts ----------------------------------------------------------------


def test_gmt_create_from_ts_is_the_shown_second() -> None:
    records = [event(i) for i in range(6)]
    from_ts = records_to_frame(records, S.EVENT)
    from_text = records_to_frame(
        [{k: v for k, v in r.items() if k != "ts"} for r in records], S.EVENT
    )
    assert str(from_ts["gmt_create"].dtype) == "datetime64[ns, UTC]"
    assert_frame_equal(from_ts, from_text)
    assert from_ts["gmt_create"].iloc[5] == pd.Timestamp("2024-05-01 00:00:01", tz="UTC")


def test_page_keeps_the_milliseconds_as_its_order() -> None:
    page = page_columns([event(0), event(1)], S.EVENT)
    assert page.order is not None
    assert page.order.dtype == np.int64
    assert page.order.tolist() == [SECOND, SECOND + 250]


@pytest.mark.parametrize("bad", [None, "1714521600000", True])
def test_a_record_without_an_integer_ts_reads_the_text(bad: Any) -> None:
    records = [event(0), event(1, ts=SECOND + 1000)]
    records[1]["ts"] = bad
    page = page_columns(records, S.EVENT)
    assert page.order is None
    df = build_frame([page], S.EVENT)
    assert df["gmt_create"].tolist() == [
        pd.Timestamp("2024-05-01 00:00:00", tz="UTC"),
        pd.Timestamp("2024-05-01 00:00:01", tz="UTC"),
    ]


def test_no_order_unless_every_page_has_one() -> None:
    with_ts = page_columns([event(0)], S.EVENT)
    without = page_columns([{k: v for k, v in event(1).items() if k != "ts"}], S.EVENT)
    assert join_order([with_ts, without]) is None
    assert join_order([]) is None
    order = join_order([with_ts, page_columns([event(1)], S.EVENT)])
    assert order is not None
    assert order.tolist() == [SECOND, SECOND + 250]


# --- members typed once for the whole read ------------------------------------------

PROPERTY_VALUES: list[Any] = [
    1,
    -7,
    2.5,
    True,
    False,
    "text",
    None,
    [1, 2],
    [3, 4],
    {"x": 1},
    {"x": 2.5, "y": "a"},
    2**63,
]


def _random_pages(seed: int) -> list[list[dict[str, Any]]]:
    rng = random.Random(seed)
    keys = ["a", "b", "c", "d"]
    kinds = {k: rng.sample(PROPERTY_VALUES, rng.randint(1, 3)) for k in keys}
    pages, i = [], 0
    for _ in range(rng.randint(1, 5)):
        page = []
        for _ in range(rng.randint(0, 6)):
            present = [k for k in keys if rng.random() < 0.6]
            rng.shuffle(present)  # the same keys in another order: another group of records
            props = {k: rng.choice(kinds[k]) for k in present}
            page.append(event(i, properties=props if rng.random() < 0.9 else None))
            i += 1
        pages.append(page)
    return pages


@pytest.mark.parametrize("seed", range(200))
def test_deferred_members_equal_members_typed_per_page(seed: int) -> None:
    pages = _random_pages(seed)
    per_page = build_frame([page_columns(p, S.EVENT) for p in pages], S.EVENT)
    deferred = build_frame([page_columns(p, S.EVENT, defer=True) for p in pages], S.EVENT)
    assert_frame_equal(deferred, per_page)


@pytest.mark.parametrize("seed", range(40))
def test_columns_joined_on_threads_equal_the_calling_thread(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opslib.client import _frames

    pages = _random_pages(seed)
    for defer in (False, True):
        monkeypatch.setattr(_frames, "_PARALLEL_MIN_ROWS", 10**9)
        alone = build_frame([page_columns(p, S.EVENT, defer=defer) for p in pages], S.EVENT)
        monkeypatch.setattr(_frames, "_PARALLEL_MIN_ROWS", 0)
        threads = build_frame([page_columns(p, S.EVENT, defer=defer) for p in pages], S.EVENT)
        assert_frame_equal(threads, alone)
        assert list(threads.columns) == list(alone.columns)


def _chunks(series: pd.Series) -> int:
    arr = pa.array(series.array)
    return arr.num_chunks if isinstance(arr, pa.ChunkedArray) else 1


@pytest.mark.parametrize("seed", range(20))
def test_text_of_large_chunks_stays_chunked_and_equal(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opslib.client import _frames

    pages = _random_pages(seed)
    joined = build_frame([page_columns(p, S.EVENT) for p in pages], S.EVENT)
    monkeypatch.setattr(C, "CHUNKED_STRINGS_MIN_ROWS", 1)  # every page counts as large
    chunked = build_frame([page_columns(p, S.EVENT) for p in pages], S.EVENT)
    assert_frame_equal(chunked, joined)
    assert _chunks(joined["event_id"]) == 1
    if len(pages) > 1 and sum(map(len, pages)) >= len(pages):  # one chunk per page
        assert _chunks(chunked["event_id"]) == len(pages)
    assert_frame_equal(_frames.finish(chunked, S.EVENT), _frames.finish(joined, S.EVENT))


@pytest.mark.parametrize(
    ("leaf", "expected"),
    [
        (pa.array(["a", None, "bc", ""]), [None, "a", None, None, None, "bc", ""]),
        (pa.array(["x", None, "bc", "d"]).slice(1, 3), [None, None, None, None, "bc", "d"]),
        (pa.array([None, None], pa.string()), [None] * 5),
        (pa.array([], pa.string()), [None] * 3),
    ],
)
def test_text_spread_over_rows_shares_the_characters(leaf: pa.Array, expected: list[Any]) -> None:
    leaf = leaf.cast(pa.large_string())
    positions = np.array([1, 4, 5, 6][: len(leaf)], dtype=np.int64)
    out = _spread_text(leaf, positions, len(expected))
    out.validate(full=True)
    assert out.to_pylist() == expected
    if len(leaf) and leaf.buffers()[2].size:
        assert out.buffers()[2].address == leaf.buffers()[2].address


def test_deferred_member_dtypes() -> None:
    pages = [
        [event(0, properties={"i": 1, "f": 1, "b": True, "s": "x", "m": 1, "n": None})],
        [event(1, properties={"i": 2, "f": 2.5, "m": "one", "o": {"x": 1}})],
        [event(2, properties={})],
    ]
    df = build_frame([page_columns(p, S.EVENT, defer=True) for p in pages], S.EVENT)
    dtypes = {c: str(t) for c, t in df.dtypes.items() if c.startswith("properties.")}
    assert dtypes == {
        "properties.b": "boolean",
        "properties.f": "Float64",
        "properties.i": "Int64",
        "properties.m": "object",
        "properties.n": "object",
        "properties.o.x": "Int64",
        "properties.s": "string",
    }
    assert df["properties.i"].isna().tolist() == [False, False, True]
    assert df["properties.m"].tolist() == [1, "one", None]


def test_deferred_and_typed_pages_together() -> None:
    deferred = page_columns([event(0, properties={"t": 1})], S.EVENT, defer=True)
    typed = page_columns([event(1, properties={"t": 2.5})], S.EVENT)
    df = build_frame([deferred, typed], S.EVENT)
    assert str(df["properties.t"].dtype) == "Float64"
    assert df["properties.t"].tolist() == [1.0, 2.5]


def test_empty_deferred_page_keeps_the_columns() -> None:
    df = build_frame([page_columns([], S.EVENT, defer=True)], S.EVENT)
    assert list(df.columns) == list(S.EVENT.dtypes())
    assert df.dtypes.to_dict() == S.EVENT.empty().dtypes.to_dict()
    assert len(df) == 0


# --- finish with the milliseconds -----------------------------------------------------


def _read(*pages: list[dict[str, Any]]) -> pd.DataFrame:
    cols = [page_columns(p, S.EVENT, defer=True) for p in pages]
    order = join_order(cols)
    return finish(build_frame(cols, S.EVENT), S.EVENT, order=order)


def test_rows_in_the_platform_order_are_kept_as_they_are() -> None:
    same = SECOND + 100
    df = _read([event(0), event(1, ts=same)], [event(2, ts=same), event(3)])
    assert df["event_id"].tolist() == ["e-0000", "e-0001", "e-0002", "e-0003"]
    assert df.index.equals(pd.RangeIndex(4))


def test_a_record_seen_twice_is_dropped_and_the_order_restored() -> None:
    # the data grew between two pages: page 2 starts with page 1's last record
    df = _read([event(0), event(1)], [event(1), event(2)])
    assert df["event_id"].tolist() == ["e-0000", "e-0001", "e-0002"]
    assert df.index.equals(pd.RangeIndex(3))


def test_events_within_one_second_follow_the_milliseconds() -> None:
    # pages out of order: sorted by (ts, event_id), not only by the shown second
    df = _read([event(5, ts=SECOND + 900)], [event(7, ts=SECOND + 100), event(6, ts=SECOND + 100)])
    assert df["event_id"].tolist() == ["e-0006", "e-0007", "e-0005"]
    assert (df["gmt_create"] == pd.Timestamp("2024-05-01", tz="UTC")).all()


# --- numbers joined straight into pandas ----------------------------------------------


def _number_chunks(seed: int, arrow_type: Any) -> list[Any]:
    rng = random.Random(seed)
    chunks = []
    for _ in range(rng.randint(2, 6)):
        size = rng.randint(0, 8)
        pool = [None, 0, 1, -(2**40), 7] if arrow_type == pa.int64() else [None, 0.5, -1.0, 3.0]
        chunk = pa.array([rng.choice(pool) for _ in range(size + 3)], type=arrow_type)
        chunk = chunk.slice(rng.randint(0, 3), size)  # an offset into its buffers
        kind = rng.random()
        if kind < 0.15:
            chunk = pa.nulls(size)  # a page where the member was always missing
        elif kind < 0.3 and arrow_type == pa.float64():
            chunk = pa.array([rng.choice([1, 2, None]) for _ in range(size)], type=pa.int64())
        chunks.append(chunk)
    return chunks


@pytest.mark.parametrize("arrow_type", [pa.int64(), pa.float64()], ids=["int", "float"])
@pytest.mark.parametrize("seed", range(60))
def test_numbers_joined_straight_equal_arrow_join_then_pandas(arrow_type: Any, seed: int) -> None:
    from opslib.client import _frames

    chunks = _number_chunks(seed, arrow_type)
    expected = _frames._PANDAS[arrow_type].__from_arrow__(
        pa.concat_arrays([c.cast(arrow_type) for c in chunks])
    )
    got = _frames._masked_numbers(chunks, arrow_type)
    assert type(got) is type(expected)
    pd.testing.assert_extension_array_equal(got, expected)


def test_a_nan_from_arrow_reads_as_pandas_reads_it() -> None:
    from opslib.client import _frames

    chunks = [pa.array([1.0, float("nan")]), pa.array([None, 2.0])]
    expected = pd.Float64Dtype().__from_arrow__(pa.concat_arrays(chunks))
    pd.testing.assert_extension_array_equal(_frames._masked_numbers(chunks, pa.float64()), expected)
