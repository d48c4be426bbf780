"""opslib.widgets tables: titles, labels and times as a person reads them."""

from __future__ import annotations

import pandas as pd
import pytest

from opslib import widgets
from opslib.widgets._tables import table_html


def test_codes_show_as_labels_and_columns_under_human_titles() -> None:
    frame = pd.DataFrame(
        {
            "device_id": ["d1", "d2"],
            "status": pd.array([1, 2], dtype="Int64"),
            "status_name": ["online", "offline"],
            "group_id": pd.array([0, 7], dtype="Int64"),
            "popular": pd.array([0, 1], dtype="Int64"),
            "days_silent": [3.25, 10.0],
        }
    )
    shown = widgets.readable(frame)
    assert list(shown.columns) == ["device_id", "status_name", "group_id", "popular", "days_silent"]
    assert shown["status_name"].tolist() == ["online", "offline"]  # no "status 1" beside it
    assert shown["group_id"].tolist() == ["no group", "7"]
    assert shown["popular"].tolist() == ["no", "yes"]
    html = table_html(frame, 10)
    assert "<th" in html
    titles = [part.split(">")[-1] for part in html.split("</th>")[:-1]]
    assert titles == ["device id", "status", "group", "popular", "days silent"]


def test_a_label_column_beside_a_code_wins_over_ours() -> None:
    """chint's popular 2 is "recommended" (ours has no 2): a products frame of that
    platform carries popular_name, and the table shows it under "popular"."""
    frame = pd.DataFrame(
        {
            "product_id": ["p-1", "p-2"],
            "popular": pd.array([0, 2], dtype="Int64"),
            "popular_name": pd.Categorical(["normal", "recommended"]),
        }
    )
    assert widgets.readable(frame)["popular_name"].tolist() == ["normal", "recommended"]
    html = table_html(frame, 10)
    assert "<th" in html
    titles = [part.split(">")[-1] for part in html.split("</th>")[:-1]]
    assert titles == ["product id", "popular"]


def test_one_time_format_per_column_in_the_zone_its_title_names() -> None:
    moments = pd.to_datetime(["2026-11-24 06:00:00", "2026-11-24 07:15:09"], utc=True)
    frame = pd.DataFrame({"gmt_last_seen": moments.tz_convert("Asia/Shanghai")})
    assert widgets.readable(frame)["gmt_last_seen"].tolist() == [
        "2026-11-24 14:00:00",
        "2026-11-24 15:15:09",
    ]
    assert ">last seen (Asia/Shanghai)</th>" in table_html(frame, 10)


def test_a_share_under_one_percent_is_not_zero() -> None:
    shown = widgets.readable(pd.DataFrame({"share": [0.004, 0.0004, 0.0]}))["share"].tolist()
    assert shown == ["0.4%", "<0.1%", "0.0%"]


def test_a_table_of_no_rows_or_fewer_is_refused() -> None:
    frame = pd.DataFrame({"device_id": ["d1", "d2", "d3"]})
    for rows in (0, -1, 2.5):  # -1 showed every row but the last, "-1 of 3 rows shown"
        with pytest.raises(ValueError, match="max_rows: give a number of rows of 1 or more"):
            widgets.Table(frame, max_rows=rows)  # type: ignore[arg-type]
    assert "2 of 3 rows shown" in widgets.Table(frame, max_rows=2)._repr_html_()
