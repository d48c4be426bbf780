"""A run's parameters as one sentence, and a report's human title, for its header.

``interactive`` and ``output_dir`` are how the runner runs a notebook, not what the report
shows: they never appear.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from opslib.csvfile import is_csv_name

__all__ = ["describe_parameters", "notebook_defaults", "report_title", "utc_text"]

_HIDDEN = frozenset({"interactive", "output_dir"})
_UNITS = {"d": "day", "h": "hour", "min": "minute", "m": "minute", "w": "week", "s": "second"}
_RELATIVE = re.compile(r"^-(\d+)\s*(d|h|min|m|w|s)$")


def utc_text(iso: str) -> str:
    """An ISO moment as ``2026-11-24 06:00 UTC`` (the text itself when it is no time).

    Examples
    --------
    >>> utc_text("2026-11-24T06:00:09+00:00")
    '2026-11-24 06:00 UTC'
    """
    import datetime as dt

    try:
        moment = dt.datetime.fromisoformat(str(iso))
    except ValueError:
        return str(iso)
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return f"{moment:%Y-%m-%d %H:%M} UTC"


def _moment(text: str) -> str:
    text = str(text).strip()
    if text == "now":
        return "now"
    match = _RELATIVE.match(text)
    if match:
        number, unit = int(match.group(1)), _UNITS[match.group(2)]
        return f"{number} {unit}{'s' if number != 1 else ''} ago"
    return text


def _period(start: str, end: str, started: str) -> str:
    match = _RELATIVE.match(str(start).strip())
    until = f" to {started}" if started else ""
    if match and str(end).strip() == "now":
        number, unit = int(match.group(1)), _UNITS[match.group(2)]
        span = f"{number} {unit}s" if number != 1 else unit
        return f"Last {span}{until}"
    return f"From {_moment(start)} to {_moment(end)}"


def _items(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    text = str(value).strip()
    return [v.strip() for v in text.split(",") if v.strip()] if text else []


def _users(items: list[str]) -> str:
    """A ``users`` list in a few words: the files it names, its ids when few.

    Examples
    --------
    >>> _users(["/data/north.csv", "u-9"]), _users(["u-1", "u-2", "u-3", "u-4"])
    ('users of north.csv and u-9', '4 users')
    """
    is_file = [is_csv_name(item) for item in items]  # as read_users reads them
    files = [Path(item).name for item, file in zip(items, is_file, strict=True) if file]
    ids = [item for item, file in zip(items, is_file, strict=True) if not file]
    if not files:
        return f"users {', '.join(ids)}" if len(ids) <= 3 else f"{len(ids)} users"
    named = files + (ids if len(ids) <= 3 else [f"{len(ids)} more users"])
    return "users of " + (
        ", ".join(named[:-1]) + " and " + named[-1] if ids or files[1:] else files[0]
    )


def describe_parameters(
    parameters: Mapping[str, Any], *, started: str = "", names: Mapping[str, str] | None = None
) -> str:
    """The parameters of a run as people say them; a device, user, product or category by
    its name when ``names`` knows its id (``started``: the period's end, with its zone).

    Examples
    --------
    >>> describe_parameters({"start": "-7d", "end": "now", "event_types": [],
    ...                      "device_id": "", "user_id": "", "interactive": False},
    ...                     started="2026-11-24 06:00 UTC")
    'Last 7 days to 2026-11-24 06:00 UTC, all event types, whole fleet.'
    """
    p = {k: v for k, v in parameters.items() if k not in _HIDDEN}
    known = names or {}

    def named(kind: str, key: object) -> str:
        name = known.get(str(key), "")
        return f"{kind} {name} ({key})" if name and name != str(key) else f"{kind} {key}"

    zone = str(p.pop("tz", "") or "")
    parts: list[str] = []
    if "start" in p or "end" in p:
        parts.append(_period(str(p.pop("start", "")), str(p.pop("end", "now")), started))
    if "event_types" in p:
        types = _items(p.pop("event_types"))
        parts.append("event types " + ", ".join(types) if types else "all event types")
    if "freq" in p:
        parts.append(f"{p.pop('freq')} buckets")
    device, user = str(p.pop("device_id", "") or ""), str(p.pop("user_id", "") or "")
    who = []
    if device:
        who.append(named("device", device))
    if user:
        who.append(named("user", user))
    for name in ("area_code", "phone", "identity_id"):
        if p.get(name):
            who.append(f"{name.replace('_', ' ')} {p[name]}")
        p.pop(name, None)
    users = _items(p.pop("users", []))
    if users:
        who.append(_users(users))
    if who:
        parts.append(", ".join(who))
    elif {"start", "category_id"} & set(parameters) or "silent_days" in parameters:
        parts.append("whole fleet")
    if "category_id" in p:
        category = p.pop("category_id")
        parts.append(
            named("category", category) if str(category) not in ("", "0") else "all categories"
        )
    if p.get("product_id"):
        parts.append(named("product", p["product_id"]))
    p.pop("product_id", None)
    if "status" in p:
        status = p.pop("status")
        parts.append(f"status {status}" if status else "every status")
    if "silent_days" in p:
        parts.append(f"silent after {p.pop('silent_days')} days")
    if "days" in p:
        parts.append(f"events of the last {p.pop('days')} days")
    if "products_path" in p:
        path = p.pop("products_path")
        parts.append(f"desired-state file {path}" if path else "no desired-state file")
    if "apply" in p:
        apply = str(p.pop("apply")).lower() in ("true", "1", "yes")
        deletes = str(p.pop("allow_delete", False)).lower() in ("true", "1", "yes")
        parts.append(
            ("apply, deletes allowed" if deletes else "apply, no deletes") if apply else "dry run"
        )
    if p.get("audit_log"):
        parts.append(f"audit log {p['audit_log']}")
    p.pop("audit_log", None)
    source, store = p.pop("source", "platform"), p.pop("store", "")
    if source == "store":  # the platform is where events come from unless said otherwise
        parts.append(f"events from the local store {store}" if store else "events from the store")
    parts.extend(
        f"{name.replace('_', ' ')} {value}" for name, value in p.items() if value not in ([], "")
    )  # an empty list or text means "not given": nothing to say
    if zone[:1] in ("+", "-"):  # a fixed offset, named as the report's times name it
        zone = f"UTC{zone}"
    if zone and not any(zone in part for part in parts):
        parts.append(f"times in {zone}")
    if not parts:
        return "Default parameters."
    text = ", ".join(parts)
    return text[0].upper() + text[1:] + "."


def notebook_defaults(notebook: str | Path) -> dict[str, Any]:
    """The literal defaults of the notebook's ``parameters`` cell (``{}`` when unreadable).

    Examples
    --------
    >>> notebook_defaults("notebooks/event_analysis.ipynb")["start"]  # doctest: +SKIP
    '-7d'
    """
    import ast

    try:
        cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return {}
    for cell in cells:
        if "parameters" not in cell.get("metadata", {}).get("tags", []):
            continue
        out: dict[str, Any] = {}
        try:
            tree = ast.parse("".join(cell.get("source", [])))
        except SyntaxError:
            return {}
        for node in tree.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                try:
                    out[node.target.id] = ast.literal_eval(node.value) if node.value else None
                except ValueError:
                    continue
        return out
    return {}


def report_title(notebook: str | Path, default: str) -> str:
    """The notebook's first ``# heading`` (``Event analysis``), else ``default``.

    Examples
    --------
    >>> report_title("notebooks/event_analysis.ipynb", "event_analysis")  # doctest: +SKIP
    'Event analysis'
    """
    try:
        cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return default
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = "".join(cell.get("source", []))
        match = re.search(r"^#\s+(.+)$", source, re.MULTILINE)
        if match:
            return match.group(1).strip()
    return default
