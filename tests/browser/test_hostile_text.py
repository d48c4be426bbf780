"""Hostile text from the platform never runs, and still shows.

A platform user chooses much of what the platform returns: nick names and avatars, the
alarm codes and property keys and values its devices report, product names and icons
(admins), category names. Here every such field of a platform's database holds markup
that sets ``window.__pwned`` when it runs. Every report runs against it in both modes
and is opened in headless Chromium; every notebook runs in JupyterLab (all cells, as a
person would). Nothing may run (``window.__pwned`` stays unset, the console shows no
error, which a Content-Security-Policy violation would be) and the text must show as it
was sent, in tables, Markdown, figure labels and widget options alike.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from reports.runs import FIGURES, REPORTS, platform_env, run_every_report

from opslib.reports import RunResult

from .lab import running_lab

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"

# Each payload, run, records which field it came from.
HOSTILE = {
    "nick": "<img src=x onerror=\"__pwned='nick'\">",
    "avatar": '"><img src=x onerror="__pwned=\'avatar\'">',
    "code": "<svg onload=\"__pwned='code'\">",  # 29 characters: a code may have 32
    "property_key": "<img src=x onerror=\"__pwned='pkey'\">",
    "property_value": "<img src=x onerror=\"__pwned='pvalue'\">",
    # plotly reads <i>, <sub>... in labels: they must show as text, not as italics
    "category": "<i>I</i><img src=x onerror=\"__pwned='category'\">",
    "category_icon": 'x"><svg onload="__pwned=\'icon\'">',
    "product": "<b>P</b><img src=x onerror=\"__pwned='product'\">",
    "product_icon": "javascript:__pwned='picon'",
    "version": "<sub>v</sub><svg onload=\"__pwned='version'\">",
    "sdk_version": "<img src=x onerror=\"__pwned='sdk'\">",
    "device_nick": "<script>__pwned='dnick'</script>",
}

# What each report shows of them, and where: anywhere (a table...), in its written
# Markdown, or in a figure's labels.
ANYWHERE, MARKDOWN, FIGURE = "body", ".jp-RenderedMarkdown", ".js-plotly-plot"
SHOWN: dict[str, tuple[tuple[str, str], ...]] = {
    "event_analysis": (
        ("code", MARKDOWN),  # "New alarm codes: ..." (the finding)
        ("code", FIGURE),
        ("code", ANYWHERE),
        ("property_key", FIGURE),
        ("property_key", ANYWHERE),
    ),
    "fleet_inventory": (("category", FIGURE), ("version", FIGURE), ("sdk_version", ANYWHERE)),
    "product_upkeep": (
        ("category", FIGURE),
        ("category", ANYWHERE),
        ("category_icon", ANYWHERE),
        ("product", ANYWHERE),
    ),
    "user_lookup": (
        ("nick", ANYWHERE),
        ("avatar", ANYWHERE),
        ("version", ANYWHERE),
        ("device_nick", ANYWHERE),
    ),
}

# The visible text under every element matching a selector: text nodes outside scripts
# and styles (figure labels included).
VISIBLE_TEXT = """selector => [...document.querySelectorAll(selector)].map(root => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: n => n.parentElement && n.parentElement.closest('script, style, textarea')
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const parts = [];
  while (walker.nextNode()) parts.push(walker.currentNode.data);
  return parts.join('');
}).join('\\n')"""


def make_hostile(db: Path, user_phone: str) -> None:
    """Put the payloads in every text field the platform returns (as a user could)."""
    conn = sqlite3.connect(db)
    h = HOSTILE
    with conn:
        conn.execute("UPDATE users SET nick_name = ?, avatar = ?", (h["nick"], h["avatar"]))
        conn.execute(
            "UPDATE categories SET category_name = ? || ' ' || category_id, category_icon = ?",
            (h["category"], h["category_icon"]),
        )
        conn.execute(
            "UPDATE products SET product_name = ?, product_icon = ?",
            (h["product"], h["product_icon"]),
        )
        user_id = conn.execute("SELECT user_id FROM users WHERE phone = ?", (user_phone,))
        user_id = user_id.fetchone()[0]
        conn.execute(
            "UPDATE devices SET version = ?, sdk_version = ?, nick_name = ?",
            (h["version"], h["sdk_version"], h["device_nick"]),
        )
        extra = {h["property_key"]: 42.5, "note": h["property_value"]}
        rows = conn.execute("SELECT device_id, properties FROM devices").fetchall()
        for device_id, text in rows:
            conn.execute(
                "UPDATE devices SET properties = ? WHERE device_id = ?",
                (json.dumps({**json.loads(text), **extra}), device_id),
            )
        rows = conn.execute("SELECT rowid, properties FROM events WHERE event_type = 3")
        for rowid, text in rows.fetchall():
            conn.execute(
                "UPDATE events SET properties = ? WHERE rowid = ?",
                (json.dumps({**json.loads(text), **extra}), rowid),
            )
        conn.execute(
            "UPDATE events SET code = ? WHERE event_type = 4 AND (rowid % 2 = 0 OR user_id = ?)",
            (h["code"], user_id),
        )
    conn.close()


@pytest.fixture(scope="module")
def hostile_platform(seeded_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A platform of its own over a copy of the seeded database, made hostile."""
    from conftest import _copy_db, _start

    db = tmp_path_factory.mktemp("hostile") / "hostile.db"
    _copy_db(seeded_db, db)
    running = _start(db)
    make_hostile(db, running.user_phone)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def hostile_runs(
    hostile_platform: Any, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], RunResult]:
    return run_every_report(hostile_platform, tmp_path_factory.mktemp("hostile-runs"))


def _watch(page: Any) -> list[str]:
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on(
        "console",
        lambda msg: problems.append(f"console: {msg.text}") if msg.type == "error" else None,
    )
    return problems


def _assert_shown(page: Any, shown: tuple[tuple[str, str], ...], where: str) -> None:
    missing = []
    for field, selector in shown:
        # widgets and tables may show spaces as no-break ones
        text = page.evaluate(VISIBLE_TEXT, selector).replace("\xa0", " ")
        if HOSTILE[field] not in text:
            missing.append(f"{field} in {selector}")
    assert missing == [], f"{where}: not shown as text: {missing}"


@pytest.mark.parametrize("mode", ["unattended", "interactive"])
@pytest.mark.parametrize("report", REPORTS)
def test_hostile_text_in_a_report_shows_and_never_runs(
    chromium: Any,
    hostile_runs: dict[tuple[str, str], RunResult],
    report: str,
    mode: str,
) -> None:
    result = hostile_runs[(report, mode)]
    assert result.outcome == "ok", result.summary()
    page = chromium.new_page()
    problems = _watch(page)
    page.goto(Path(result.html).as_uri())
    # a locator waits in Playwright's own world, which the page's CSP does not govern
    page.locator(".js-plotly-plot .main-svg").nth(FIGURES[report] - 1).wait_for()
    page.wait_for_timeout(500)  # an onload or onerror would have run by now
    assert page.evaluate("window.__pwned") is None
    assert problems == []
    _assert_shown(page, SHOWN[report], f"{report} ({mode})")


@pytest.fixture(scope="module")
def hostile_lab(hostile_platform: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab over copies of the four notebooks, their kernels reaching the platform."""
    notebooks = [NOTEBOOKS / f"{name}.ipynb" for name in REPORTS]
    directory = tmp_path_factory.mktemp("hostile-lab")
    with running_lab(directory, notebooks, platform_env(hostile_platform)) as base:
        yield base


def _run_all(page: Any, wait: Callable[[], None]) -> None:
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    wait()
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=180_000)
    page.wait_for_timeout(1000)  # the last outputs drawn; an onload would have run


@pytest.mark.parametrize("notebook", REPORTS)
def test_hostile_text_in_jupyterlab_shows_and_never_runs(
    chromium: Any, hostile_lab: str, notebook: str
) -> None:
    page = chromium.new_page()
    page.set_default_timeout(60_000)
    problems = _watch(page)
    page.goto(f"{hostile_lab}/lab/tree/{notebook}.ipynb?reset")  # no tabs of earlier tests
    # the connected ops account, run as is, has no device: its two charts are sentences
    drawn = ".js-plotly-plot, .opslib-empty" if notebook == "user_lookup" else ".js-plotly-plot"
    _run_all(
        page,
        lambda: page.wait_for_function(
            f"document.querySelectorAll({drawn!r}).length >= {FIGURES[notebook]}",
            timeout=180_000,
        ),
    )
    assert page.evaluate("window.__pwned") is None
    assert page.locator(".jp-OutputArea-output[data-mime-type*='error']").count() == 0
    shown = SHOWN[notebook]
    if notebook == "user_lookup":  # run as is, it shows the connected (ops) account
        shown = (("nick", ANYWHERE), ("avatar", ANYWHERE))
    if notebook == "fleet_inventory":  # and the category filter lists the hostile names
        shown += (("category", ".widget-dropdown select"),)
    _assert_shown(page, shown, f"{notebook} in JupyterLab")
    errors = [p for p in problems if "Content Security Policy" in p or "__pwned" in p]
    assert errors == []
