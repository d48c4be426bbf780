"""The scripts of a report, and its Content-Security-Policy: only the scripts the report
wrote itself run.

Those are plotly.js (the shared file, or inline), its one-line configuration, the line
that marks a page whose scripts run (:data:`SCRIPTS_RUN`), the line that marks the page
when plotly.js did not load (:data:`PLOTLY_CHECK`), and each figure's ``Plotly.newPlot``
call whose arguments are JSON, allowed by their SHA-256 hashes.

The text comes first, the charts after: plotly.js is the last thing in the page's body
(:func:`plotly_scripts`) and each figure's call runs once the page is parsed (a module
script, :func:`defer_figures`), so the browser shows the header and its headline figures
before it spends a second or more starting plotly.js.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import re
from collections.abc import Iterator

__all__ = [
    "PLOTLY_CHECK",
    "SCRIPTS_RUN",
    "content_security_policy",
    "defer_figures",
    "noplotly_html",
    "plotly_scripts",
    "scripts_run_head",
    "with_policy",
]

SCRIPTS_RUN = "document.documentElement.classList.add('opslib-js');"
"""Run first, in the head: the page's scripts run, so the warning that its charts cannot be
drawn waits for :data:`PLOTLY_CHECK` (a page whose scripts do not run keeps it shown)."""
PLOTLY_CHECK = (
    "if (!window.Plotly) document.documentElement.classList.add('opslib-noplotly-shown');"
)
"""Run after plotly.js: marks the page when plotly.js did not load, which shows the
warning a report opened without it shows (a copy away from its folder)."""


def scripts_run_head() -> str:
    """The head's one script (:data:`SCRIPTS_RUN`)."""
    return f'<script type="text/javascript">{SCRIPTS_RUN}</script>'


def plotly_scripts(plotly_src: str | None) -> str:
    """plotly.js, its configuration before it and :data:`PLOTLY_CHECK` after it: the end
    of the body, so that the page shows before plotly.js starts."""
    config = '<script type="text/javascript">window.PlotlyConfig = {MathJaxConfig: "local"};'
    config += "</script>\n"
    check = f'\n<script type="text/javascript">{PLOTLY_CHECK}</script>'
    if plotly_src is not None:
        source = f'<script type="text/javascript" src="{html.escape(plotly_src)}"></script>'
        return config + source + check
    from plotly.offline import get_plotlyjs

    return f'{config}<script type="text/javascript">{get_plotlyjs()}</script>{check}'


def noplotly_html(plotly_src: str | None) -> str:
    """The warning a report shows at the top when its charts cannot be drawn."""
    where = f"<code>{html.escape(plotly_src)}</code>" if plotly_src else "inside the page"
    return (
        '<div class="opslib-noplotly" role="alert"><strong>The charts of this report '
        "cannot be drawn here.</strong> They need plotly.js, which this page loads from "
        f"{where}, beside the report in its folder: this copy was opened away from it (a "
        "mail attachment, a copied file). Open the report in its reports folder, or run it "
        "with <code>--self-contained</code> for one file that draws anywhere. The "
        "tables and text below are complete.</div>"
    )


_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script[\s/>]", re.IGNORECASE | re.DOTALL)
# A figure as plotly.io.to_html writes it (include_plotlyjs=False): its arguments are JSON.
_FIGURE = re.compile(
    r"\s*window\.PLOTLYENV=window\.PLOTLYENV \|\| \{\};\s*"
    r'if \(document\.getElementById\("(?P<id>[0-9a-f-]{36})"\)\) \{\s*'
    r'Plotly\.newPlot\(\s*"(?P=id)",(?P<args>.*)\)\s*\};?\s*',
    re.DOTALL,
)
_PLOTLY_CONFIGS = (
    'window.PlotlyConfig = {MathJaxConfig: "local"};',
    "window.PlotlyConfig = {MathJaxConfig: 'local'};",
)
_POLICY = (
    "default-src 'none'; script-src {scripts}; style-src 'unsafe-inline'; img-src data:;"
    " font-src data:; base-uri 'none'; form-action 'none'"
)


@functools.cache
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _json_arguments(text: str, count: int) -> bool:
    """Whether ``text`` is exactly ``count`` JSON values separated by commas."""
    decoder = json.JSONDecoder()
    position = 0
    for n in range(count):
        while position < len(text) and text[position].isspace():
            position += 1
        try:
            _, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            return False
        rest = text[position:].lstrip()
        if n < count - 1:
            if not rest.startswith(","):
                return False
            position = len(text) - len(rest) + 1
    return not text[position:].strip()


def _figure_call(script: str) -> bool:
    """A figure's ``Plotly.newPlot`` call as the report wrote it, its arguments JSON."""
    figure = _FIGURE.fullmatch(script)
    return figure is not None and _json_arguments(figure.group("args"), 3)


def _trusted(script: str) -> bool:
    """A script the report wrote itself: plotly.js, its configuration, the two markers, a
    figure call."""
    mine = (PLOTLY_CHECK, SCRIPTS_RUN)
    if script.strip() in _PLOTLY_CONFIGS or script in mine or script == _plotly_js():
        return True
    return _figure_call(script)


def defer_figures(page: str) -> str:
    """Each figure's ``Plotly.newPlot`` call as a module script, which runs once the page is
    parsed: after plotly.js at the end of the body (the same text, so the same hash)."""

    def deferred(match: re.Match[str]) -> str:
        if not _figure_call(match.group(1)):
            return match[0]
        return '<script type="module">' + match[0][match.start(1) - match.start() :]

    return _SCRIPT.sub(deferred, page)


def _hashes(page: str) -> Iterator[str]:
    for match in _SCRIPT.finditer(page):
        script = match.group(1)
        if _trusted(script):
            digest = hashlib.sha256(script.encode("utf-8")).digest()
            yield f"'sha256-{base64.b64encode(digest).decode()}'"


def content_security_policy(page: str, *, script_file: bool = False) -> str:
    """The policy of ``page``: only its own plotly.js, configuration and figure calls run.

    ``script_file``: the page loads plotly.js from the file its reports share; Chromium
    allows a script file of a page opened from disk by ``'self'`` only (not by its hash).

    Examples
    --------
    >>> content_security_policy("<p>no script</p>").split(";")[1]
    " script-src 'none'"
    """
    sources = list(dict.fromkeys(_hashes(page)))
    if script_file:
        sources.insert(0, "'self'")
    scripts = " ".join(sources) or "'none'"
    return _POLICY.format(scripts=scripts)


def with_policy(page: str, *, script_file: bool) -> str:
    policy = content_security_policy(page, script_file=script_file)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">'
    head = re.search(r"<head\b[^>]*>", page, re.IGNORECASE)
    if head is None:
        raise ValueError("the exported page has no <head>")
    return page[: head.end()] + "\n" + meta + page[head.end() :]
