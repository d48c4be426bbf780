"""A report's first screen: the parameters as a sentence and its headline figures.

A notebook shows them with :func:`opslib.reports.notebook.headline`, as HTML and as JSON
under :data:`HEADLINE_MIMETYPE`; the exporter moves them into the report's header (the
first screen, whatever cell made them) and the runner keeps them in status.json. Nothing
here imports pandas.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["HEADLINE_MIMETYPE", "headline_html", "notebook_headline"]

HEADLINE_MIMETYPE = "application/vnd.opslib.headline+json"

_CARD = (
    "flex:0 1 190px;min-width:150px;border:1px solid #ddd;border-radius:6px;"
    "padding:8px 12px;background:#fff"
)


def headline_html(sentence: str, figures: Sequence[Mapping[str, Any]]) -> str:
    """The sentence, then one card per figure: its value large, its label, its change
    (a figure published without a card, ``shown`` false, is left out).

    Examples
    --------
    >>> headline_html("Last 7 days.", [{"label": "events", "value_text": "1,234",
    ...                                 "change_text": "+4%", "note": ""}])[:40]
    '<div class="opslib-headline"><p class="o'
    """
    cards = []
    for figure in figures:
        if not figure.get("shown", True):
            continue
        value = html.escape(str(figure.get("value_text", "")))
        missing = figure.get("value") is None
        style = "font-size:1.05em;color:#777" if missing else "font-size:1.6em;font-weight:600"
        parts = [
            f'<div class="opslib-figure" data-key="{html.escape(str(figure.get("key", "")))}" '
            f'style="{_CARD}">',
            f'<div class="opslib-value" style="{style}">{value}</div>',
            f'<div class="opslib-label" style="color:#333">{html.escape(str(figure.get("label")))}'
            "</div>",
        ]
        change = str(figure.get("change_text") or "")
        if change:
            parts.append(
                f'<div class="opslib-change" style="color:#555;font-size:0.85em">'
                f"{html.escape(change)}</div>"
            )
        note = str(figure.get("note") or "")
        if note:
            parts.append(
                f'<div class="opslib-note" style="color:#777;font-size:0.8em">'
                f"{html.escape(note)}</div>"
            )
        parts.append("</div>")
        cards.append("".join(parts))
    return (
        '<div class="opslib-headline">'
        f'<p class="opslib-sentence" style="margin:2px 0 8px;font-size:1.05em">'
        f"{html.escape(sentence)}</p>"
        '<div class="opslib-figures" style="display:flex;flex-wrap:wrap;gap:8px;'
        f'margin:0 0 6px">{"".join(cards)}</div></div>'
    )


def notebook_headline(notebook: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The last headline an executed notebook showed: ``{"sentence", "figures"}``, or None.

    Examples
    --------
    >>> notebook_headline("reports/fleet_inventory/20261124T060000Z/fleet_inventory.ipynb")
    ...  # doctest: +SKIP
    {'sentence': 'Whole fleet, every status, silent after 7 days.', 'figures': [...]}
    """
    try:
        cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    found = None
    for cell in cells:
        for output in cell.get("outputs", []) or []:
            data = (output.get("data") or {}).get(HEADLINE_MIMETYPE)
            if isinstance(data, dict):
                found = data
    return found
