"""Properties typed once for the whole read equal properties typed page by page (each
page's members through pyarrow, the chunks joined), with the same dtypes; text spread over
the rows shares its characters."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from pandas.testing import assert_frame_equal

from client.records import event
from opslib.client import _constants as C
from opslib.client.frames import build as _frames
from opslib.client.frames import schema as S
from opslib.client.frames.build import PageColumns, build_frame, dedupe_and_sort, page_columns
from opslib.client.frames.properties import _spread_text, typed_property_chunks

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


def typed_per_page(records: list[dict[str, Any]]) -> PageColumns:
    """One page's columns with every member typed on the page (each member's values, None
    where a record lacks it, through pyarrow): the reference the read's typing equals."""
    page = page_columns(records, S.EVENT)
    members: dict[str, list[Any]] = {}
    for row, record in enumerate(records):
        for key, value in (record.get("properties") or {}).items():
            members.setdefault(key, [None] * len(records))[row] = value
    page.deferred = {}
    for key, values in members.items():
        for name, chunk in typed_property_chunks(f"properties.{key}", values):
            page.properties[name] = chunk
    return page


@pytest.mark.parametrize("seed", range(200))
def test_members_typed_once_equal_members_typed_per_page(seed: int) -> None:
    pages = _random_pages(seed)
    per_page = build_frame([typed_per_page(p) for p in pages], S.EVENT)
    once = build_frame([page_columns(p, S.EVENT) for p in pages], S.EVENT)
    assert_frame_equal(once, per_page)


@pytest.mark.parametrize("seed", range(40))
def test_columns_joined_on_threads_equal_the_calling_thread(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = _random_pages(seed)
    for typing in (typed_per_page, lambda p: page_columns(p, S.EVENT)):
        monkeypatch.setattr(_frames, "_PARALLEL_MIN_ROWS", 10**9)
        alone = build_frame([typing(p) for p in pages], S.EVENT)
        monkeypatch.setattr(_frames, "_PARALLEL_MIN_ROWS", 0)
        threads = build_frame([typing(p) for p in pages], S.EVENT)
        assert_frame_equal(threads, alone)
        assert list(threads.columns) == list(alone.columns)


def _chunks(series: pd.Series) -> int:
    arr = pa.array(series.array)
    return arr.num_chunks if isinstance(arr, pa.ChunkedArray) else 1


@pytest.mark.parametrize("seed", range(20))
def test_text_of_large_chunks_stays_chunked_and_equal(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = _random_pages(seed)
    joined = build_frame([typed_per_page(p) for p in pages], S.EVENT)
    monkeypatch.setattr(C, "CHUNKED_STRINGS_MIN_ROWS", 1)  # every page counts as large
    chunked = build_frame([typed_per_page(p) for p in pages], S.EVENT)
    assert_frame_equal(chunked, joined)
    assert _chunks(joined["event_id"]) == 1
    if len(pages) > 1 and sum(map(len, pages)) >= len(pages):  # one chunk per page
        assert _chunks(chunked["event_id"]) == len(pages)
    assert_frame_equal(dedupe_and_sort(chunked, S.EVENT), dedupe_and_sort(joined, S.EVENT))


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
    df = build_frame([page_columns(p, S.EVENT) for p in pages], S.EVENT)
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
    deferred = page_columns([event(0, properties={"t": 1})], S.EVENT)
    typed = typed_per_page([event(1, properties={"t": 2.5})])
    df = build_frame([deferred, typed], S.EVENT)
    assert str(df["properties.t"].dtype) == "Float64"
    assert df["properties.t"].tolist() == [1.0, 2.5]


def test_empty_deferred_page_keeps_the_columns() -> None:
    df = build_frame([page_columns([], S.EVENT)], S.EVENT)
    assert list(df.columns) == list(S.EVENT.dtypes())
    assert df.dtypes.to_dict() == S.EVENT.empty().dtypes.to_dict()
    assert len(df) == 0
