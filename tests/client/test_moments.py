"""Moments from ``ts``: the shown second, the page's order in milliseconds, and the text
when a record has no integer ``ts``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from client.records import SECOND, event
from opslib.client.frames import schema as S
from opslib.client.frames.build import build_frame, join_order, page_columns, records_to_frame

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
