"""When a report's first screen shows, against when its charts can: headless Chromium.

    .venv/bin/python -m benchmarks.first_paint REPORT.html [REPORT.html ...] [--rounds 3]

Opens each page in a fresh context of Debian's chromium (as the browser tests do), the
pages alternated round by round, and prints, in ms from the start of the navigation: the
first contentful paint, the moment plotly.js has run (it sets ``window.Plotly``, trapped
by a script added before the page's own), and the end of parsing (``DOMContentLoaded``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
PLOTLY_RAN = """(() => {
  let plotly;
  Object.defineProperty(window, 'Plotly', {configurable: true, get() { return plotly; },
    set(value) { plotly = value; performance.mark('plotly-ran'); }});
})();"""
TIMES = """() => {
  const at = name => (performance.getEntriesByName(name)[0] || {startTime: NaN}).startTime;
  const nav = performance.getEntriesByType('navigation')[0];
  return {paint: at('first-contentful-paint'), plotly: at('plotly-ran'),
          parsed: nav.domContentLoadedEventStart};
}"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.first_paint")
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    seen: dict[Path, list[dict[str, float]]] = {page: [] for page in args.pages}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        for _ in range(args.rounds):
            for path in args.pages:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                page.add_init_script(PLOTLY_RAN)
                page.goto(path.resolve().as_uri(), wait_until="load")
                if page.locator(".js-plotly-plot").count():
                    page.locator(".js-plotly-plot .main-svg").first.wait_for()
                seen[path].append(page.evaluate(TIMES))
                context.close()
        browser.close()
    print("page | first paint ms (runs) | plotly.js ran ms | parsed ms")
    print("--- | --- | --- | ---")
    for path, runs in seen.items():
        paint = [round(r["paint"]) for r in runs]
        plotly = statistics.median(r["plotly"] for r in runs)
        parsed = statistics.median(r["parsed"] for r in runs)
        print(f"{path} | {statistics.median(paint):.0f} {paint} | {plotly:.0f} | {parsed:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
