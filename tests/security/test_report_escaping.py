"""Platform text is escaped where the reports turn it into markup.

Fast checks of the functions; tests/browser/test_hostile_text.py runs every report and
notebook over a hostile platform in Chromium and JupyterLab.
"""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest
from nbconvert.filters.markdown import markdown2html_mistune

from opslib import plots
from opslib.analysis import change_summary
from opslib.analysis._markup import label_text, markdown_text

HOSTILE = [
    "<svg onload=alert(5)>",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "[click](javascript:alert(1))",
    "**bold** _it_ `code` # head",
    "a\nb\r\n- item",
    "&lt;already escaped&gt; & 'quotes' \"too\"",
    "$x^2$ \\(y\\)",
]


def _rendered(markdown: str) -> str:
    return str(markdown2html_mistune(markdown))


def _text(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


@pytest.mark.parametrize("value", HOSTILE)
def test_markdown_text_renders_as_exactly_its_text(value: str) -> None:
    rendered = _rendered(f"- {markdown_text(value)}.")
    tags = set(re.findall(r"</?([a-zA-Z][a-zA-Z0-9]*)", rendered))
    assert tags <= {"ul", "li"}, rendered  # no tag of the value's, no link, no emphasis
    assert _text(rendered).strip() == " ".join(value.split()) + "."


def test_new_alarm_codes_are_text_in_the_summary() -> None:
    now = pd.Timestamp("2024-05-10", tz="UTC")
    events = pd.DataFrame(
        {
            "device_id": pd.array(["d1", "d2"], dtype="string"),
            "event_type": pd.array([4, 4], dtype="Int64"),
            "code": pd.array(HOSTILE[:2], dtype="string"),
            "gmt_create": [now, now],
        }
    )
    earlier = events.iloc[0:0]
    summary = change_summary(events, earlier)
    rendered = _rendered(summary)
    assert "<svg" not in rendered, rendered
    assert "<img" not in rendered, rendered
    text = _text(rendered)
    assert all(code in text for code in HOSTILE[:2]), text


def test_label_text_is_what_plotly_shows() -> None:
    assert label_text("<b>B</b> & <br>") == "&lt;b&gt;B&lt;/b&gt; &amp; &lt;br&gt;"
    assert label_text(42) == "42"


def test_figure_labels_from_the_platform_are_escaped() -> None:
    codes = pd.DataFrame(
        {
            "code": pd.array(["<b>F1</b>", "E&2"], dtype="string"),
            "severity": ["fault", "alarm"],
            "alarms": [3, 1],
            "devices": [2, 1],
        }
    )
    figure = plots.alarm_codes_chart(codes)
    assert [list(trace.x) for trace in figure.data] == [["&lt;b&gt;F1&lt;/b&gt;"], ["E&amp;2"]]
    products = pd.DataFrame(
        {"category_name": ["<i>Lamps</i>"], "status_name": ["released"], "product_id": ["p"]}
    )
    figure = plots.products_chart(products)
    assert list(figure.data[0].x) == ["&lt;i&gt;Lamps&lt;/i&gt;"]
    counts = pd.DataFrame({"version": ["<sub>1</sub>"], "devices": [4], "share": [1.0]})
    figure = plots.counts_bar(counts, "version")
    assert list(figure.data[0].y) == ["&lt;sub&gt;1&lt;/sub&gt;"]
