"""The figures a report publishes: named metrics with units, and named sets.

A report's headline (:func:`opslib.reports.notebook.headline`, from
``analysis.fleet_headline`` and its siblings) is the one source: the runner reads the
headline the executed notebook showed and records each numeric figure as a metric of its
``key`` (``fleet.online_share``: value and unit), each value of a figure's ``parts`` as
``key[part]`` (``events.fault_rate_by_product[p-sensor-02]``), and the ids a figure counts
as a set of the same name (``fleet.silent_devices``). Nothing is computed again here, and
nothing here imports pandas.

What a report may publish is declared in its notebook's metadata, so that alert rules are
checked before any kernel starts::

    "opslib": {"publishes": {
        "metrics": {"fleet.devices": "", "fleet.online_share": "%",
                    "events.fault_rate_by_product[*]": "%"},
        "sets": ["fleet.silent_devices"]}}

A unit is ``""`` for a count, ``"%"`` for a share, ``"h"`` for hours; ``name[*]`` declares
a family with one metric per part.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opslib._percent import figure_text

__all__ = [
    "UNITS",
    "Catalogue",
    "family",
    "format_value",
    "one_line",
    "published",
    "read_catalogue",
]

UNITS = {"": "a count", "%": "a share in %", "h": "hours"}
# A name is the platform's text: a line break or control character in it would start a
# line of its own in a message.
_ONE_LINE = re.compile(r"[\s\x00-\x1f\x7f]+")


def one_line(text: object) -> str:
    """A name from the platform as one line of text (line breaks and control characters
    become a space).

    >>> one_line("Kitchen\\r\\nRun: lamp")
    'Kitchen Run: lamp'
    """
    return _ONE_LINE.sub(" ", str(text)).strip()


@dataclass(frozen=True)
class Catalogue:
    """The metrics (name → unit) and sets a report declares it publishes."""

    report: str
    metrics: dict[str, str] = field(default_factory=dict)
    sets: tuple[str, ...] = ()

    def unit_of(self, name: str) -> str | None:
        """The unit of a metric name (a family's part by its ``[*]`` entry), None if unknown.

        Examples
        --------
        >>> Catalogue("r", {"a.rate[*]": "%"}).unit_of("a.rate[p-1]")
        '%'
        """
        if name in self.metrics:
            return self.metrics[name]
        base, part = family(name)
        if part is not None:
            return self.metrics.get(f"{base}[*]")
        return None

    def names(self) -> list[str]:
        """Every metric name, families as ``name[*]``."""
        return sorted(self.metrics)


def family(name: str) -> tuple[str, str | None]:
    """``("events.rate", "p-1")`` for ``events.rate[p-1]``; ``(name, None)`` otherwise.

    Examples
    --------
    >>> family("events.fault_rate_by_product[p-sensor-02]")
    ('events.fault_rate_by_product', 'p-sensor-02')
    """
    if name.endswith("]") and "[" in name:
        base, _, part = name[:-1].partition("[")
        return base, part
    return name, None


def read_catalogue(notebook: str | os.PathLike[str]) -> Catalogue:
    """What a report notebook declares it publishes (metadata ``opslib.publishes``).

    Raises
    ------
    ValueError
        A declaration that is not a table of names and units, or names an unknown unit.

    Examples
    --------
    >>> read_catalogue(find_notebook("fleet_inventory")).unit_of("fleet.online_share")
    ...  # doctest: +SKIP
    '%'
    """
    path = Path(notebook)
    doc = json.loads(path.read_text(encoding="utf-8"))
    declared = ((doc.get("metadata") or {}).get("opslib") or {}).get("publishes") or {}
    metrics = declared.get("metrics") or {}
    sets = declared.get("sets") or []
    if not isinstance(metrics, dict) or not isinstance(sets, list):
        raise ValueError(
            f"{path.name}: metadata opslib.publishes needs metrics (name: unit) and sets "
            "(a list of names)"
        )
    wrong = {name: unit for name, unit in metrics.items() if unit not in UNITS}
    if wrong:
        raise ValueError(
            f"{path.name}: metadata opslib.publishes names unknown units {wrong}; "
            f"allowed: {', '.join(repr(u) for u in UNITS)}"
        )
    return Catalogue(path.stem, {str(k): str(v) for k, v in metrics.items()}, tuple(sets))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def published(
    headline: Mapping[str, Any] | None,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The metrics and sets of a headline as the notebook showed it.

    Returns
    -------
    tuple of dict
        ``metrics``: name → ``{"value", "unit", "label"}`` (value None when the report
        could not compute it; text figures, a name or a time, are not metrics; a part of
        a family also has ``"part"``, how people know it: ``LED Strip (p-light-02)``); ``sets``:
        name → ``{"members", "noun", "joined", "left", "label"}``, and ``"names"`` (member
        → how people know it) where the report knew them.

    Examples
    --------
    >>> metrics, sets = published({"figures": [
    ...     {"key": "fleet.silent_devices", "label": "silent", "value": 2, "unit": "",
    ...      "members": {"ids": ["d1", "d2"], "noun": "device", "joined": "went silent",
    ...                  "left": "came back"}}]})
    >>> metrics["fleet.silent_devices"]["value"], sets["fleet.silent_devices"]["members"]
    (2.0, ['d1', 'd2'])
    """
    metrics: dict[str, dict[str, Any]] = {}
    sets: dict[str, dict[str, Any]] = {}
    for figure in (headline or {}).get("figures") or []:
        key, label = str(figure.get("key") or ""), str(figure.get("label") or "")
        unit = str(figure.get("unit") or "")
        if not key:
            continue
        value = figure.get("value")
        if value is None or _number(value) is not None:
            metrics[key] = {"value": _number(value), "unit": unit, "label": label}
        part_names = figure.get("part_names") or {}
        for part, part_value in sorted((figure.get("parts") or {}).items()):
            name = one_line(part_names.get(part) or "")
            shown = f"{name} ({part})" if name and name != part else str(part)
            metrics[f"{key}[{part}]"] = {
                "value": _number(part_value),
                "unit": unit,
                "label": f"{label}: {shown}",
                "part": shown,
            }
        members = figure.get("members")
        if isinstance(members, dict):
            sets[key] = {
                "members": sorted(str(m) for m in members.get("ids") or []),
                "noun": str(members.get("noun") or "member"),
                "joined": str(members.get("joined") or "joined"),
                "left": str(members.get("left") or "left"),
                "label": label,
            }
            if members.get("names"):
                sets[key]["names"] = {str(k): str(v) for k, v in members["names"].items()}
    return metrics, sets


def format_value(value: float | None, unit: str) -> str:
    """A metric's value as a person reads it: ``1,234``, ``5.2%``, ``12.5 h``.

    Examples
    --------
    >>> format_value(0.25, "%"), format_value(1234.0, ""), format_value(None, "h")
    ('0.25%', '1,234', 'not computed')
    """
    return "not computed" if value is None else figure_text(value, unit)
