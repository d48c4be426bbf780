"""What a person sees of a report, read from the page in Chromium (helpers of the browser
tests): the first screen, the charts' drawn data, the tables as shown."""

from __future__ import annotations

from typing import Any

# The header as drawn: title, sentence, each headline card, and where they end.
FIRST_SCREEN = """() => {
  const box = e => e ? e.getBoundingClientRect() : null;
  const header = document.querySelector('.opslib-header');
  const text = e => e ? e.innerText.trim() : '';
  const cards = [...header.querySelectorAll('.opslib-figure')].map(c => ({
    value: text(c.querySelector('.opslib-value')), label: text(c.querySelector('.opslib-label')),
    change: text(c.querySelector('.opslib-change')), note: text(c.querySelector('.opslib-note')),
    bottom: box(c).bottom, visible: box(c).width > 0}));
  const footer = document.querySelector('.opslib-footer');
  return {title: text(header.querySelector('h1')),
          sentence: text(header.querySelector('.opslib-sentence')), cards,
          headerBottom: box(header).bottom, height: window.innerHeight,
          demoBanners: document.querySelectorAll('.opslib-demo').length,
          platformLines: document.querySelectorAll('.opslib-platform').length,
          footer: text(footer), footerTop: footer ? box(footer).top : null,
          problem: text(header.querySelector('.opslib-problem'))};
}"""

# Every drawn figure: its title and its traces' x/y as plotly holds them.
FIGURES = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => ({
  title: gd.layout.title && gd.layout.title.text,
  xtitle: gd.layout.xaxis && gd.layout.xaxis.title && gd.layout.xaxis.title.text,
  traces: gd.data.map(t => ({name: t.name, x: t.x, y: t.y, type: t.type})),
}))"""

# Every table of the body as shown: its column titles and its rows' cells.
TABLES = """() => [...document.querySelectorAll('table.opslib-table')].map(t => ({
  head: [...t.querySelectorAll('thead th')].map(th => th.innerText.trim()),
  rows: [...t.querySelectorAll('tbody tr')]
    .map(r => [...r.querySelectorAll('td')].map(td => td.innerText.trim())),
  top: t.getBoundingClientRect().top + window.scrollY,
}))"""


def figure(figures: list[dict[str, Any]], title: str) -> dict[str, Any]:
    """The figure whose title starts with ``title``."""
    found = [f for f in figures if str(f["title"] or "").startswith(title)]
    assert found, [f["title"] for f in figures]
    return found[0]


def column(table: dict[str, Any], title: str) -> list[str]:
    """The cells of a table's column, by its title."""
    index = table["head"].index(title)
    return [row[index] for row in table["rows"]]


def open_report(chromium: Any, path: str, *, width: int = 1280, height: int = 900) -> Any:
    """A page of ``path`` at that size, its charts drawn (or none to draw)."""
    from pathlib import Path

    page = chromium.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(Path(path).as_uri())
    if page.locator(".js-plotly-plot").count():
        # a locator waits in Playwright's own world, which the page's CSP does not govern
        page.locator(".js-plotly-plot .main-svg").first.wait_for()
    return page
