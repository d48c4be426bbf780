"""Alert rules evaluated after each run, their state, and who is told.

After a run that published its figures (outcome ``ok`` or ``partial``), each rule of the
run's report and label is evaluated (:func:`evaluate`) against this run and the previous
run of the same parameters. A rule *fires* when its condition has held on ``for_runs``
consecutive runs, and *clears* on the first run where it no longer holds: one notification
each, never one per run while it holds. A run that cannot tell (it failed, the metric was
not computed, there is no previous run to compare with) changes nothing.

The state is a small JSON file per report and label beside the runs,
``<out>/.alerts/<report>[--<label>].json``, written while the run holds that report's lock
(:mod:`opslib.reports.locks`), so two runs never update it at once; index.html reads it to
show the alerts that hold now.
"""

from __future__ import annotations

import contextlib
import json
import operator
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from opslib.reports._names import file_safe
from opslib.reports.alerts import Rule, rules_for
from opslib.reports.changes import (
    COUNTED,
    SHOWN_MEMBERS,
    RunNotFound,
    changes_lines,
    listed,
    members_text,
    read_run,
    when_text,
)
from opslib.reports.metrics import family, format_value
from opslib.reports.status import RunResult, write_status

__all__ = [
    "ALERT_DIR",
    "Alerting",
    "Finding",
    "after_run",
    "evaluate",
    "firing_alerts",
    "send_sample",
]

ALERT_DIR = ".alerts"
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
}  # fmt: skip


@dataclass(frozen=True)
class Alerting:
    """The rules a run reads and the targets of those without their own (``[notify]``)."""

    rules: tuple[Rule, ...] = ()
    urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    """What a rule found in one run: whether it holds (None: cannot tell), the values
    now and before, the threshold or change, and one line saying it."""

    holds: bool | None
    now: str = ""
    before: str = ""
    threshold: str = ""
    detail: str = ""


def _values(status: Mapping[str, Any] | None, subject: str) -> dict[str, Any] | None:
    """The metric's value (each part's, for ``name[*]``); None when the run published no
    figures; an absent metric is left out (the report found nothing to say)."""
    if status is None:
        return None
    metrics = status.get("metrics") or {}
    base, part = family(subject)
    if part == "*":
        return {
            name: metric.get("value")
            for name, metric in metrics.items()
            if family(name)[0] == base and family(name)[1] is not None
        }
    return {subject: metrics[subject].get("value")} if subject in metrics else {}


def _unit(status: Mapping[str, Any], subject: str) -> str:
    metrics = status.get("metrics") or {}
    base, part = family(subject)
    for name, metric in metrics.items():
        if name == subject or (part == "*" and family(name)[0] == base):
            return str(metric.get("unit") or "")
    return ""


def _holds_change(rule: Rule, now: float, before: float) -> bool:
    condition = rule.condition
    amount = float(condition.amount or 0)
    rise = now - before if condition.op == "rises_by" else before - now
    if not condition.relative:
        return rise >= amount
    if before == 0:  # from nothing, any rise is a rise of more than any percentage
        return condition.op == "rises_by" and now > 0
    return rise / abs(before) * 100 >= amount


def _shown(status: Mapping[str, Any], name: str) -> str:
    """A family's part as people know it (``LED Strip (p-light-02)``), else its name."""
    metric = (status.get("metrics") or {}).get(name) or {}
    return str(metric.get("part") or name)


def _absent(status: Mapping[str, Any], subject: str) -> str:
    """Why a run has no value of ``subject``: its report could not compute it there (the
    platform has no such data; the report says why), or it does not publish it."""
    metrics = status.get("metrics") or {}
    if subject in metrics or any(family(name)[0] == family(subject)[0] for name in metrics):
        return "not computed in this run"
    return "not in this run's figures"


def _evaluate_new(
    rule: Rule, status: Mapping[str, Any], before: Mapping[str, Any] | None
) -> Finding:
    subject = rule.condition.subject
    now_set = (status.get("sets") or {}).get(subject)
    old_set = None if before is None else (before.get("sets") or {}).get(subject)
    if now_set is None:
        return Finding(None, detail=f"{subject}: {_absent(status, subject)}")
    if old_set is None:
        return Finding(None, detail=f"{subject}: nothing to compare with")
    members, was = list(now_set.get("members") or []), set(old_set.get("members") or [])
    added = [m for m in members if m not in was]
    noun = str(now_set.get("noun") or "member")
    now_text, before_text = f"{len(members):,} {noun}s", f"{len(was):,} {noun}s"
    if not added:
        return Finding(False, now_text, before_text, "any new", f"no new {noun} in {subject}")
    detail = f"{len(added):,} new in {subject}: {members_text(added, now_set.get('names'))}"
    return Finding(True, now_text, before_text, "any new", detail)


def evaluate(rule: Rule, status: Mapping[str, Any], before: Mapping[str, Any] | None) -> Finding:
    """Whether ``rule`` holds in the run of ``status``, ``before`` being the previous run of
    the same parameters (None: there is none).

    Examples
    --------
    >>> from opslib.reports.alerts import parse_condition
    >>> rule = Rule("r", parse_condition("x.share > 5%"))
    >>> evaluate(rule, {"metrics": {"x.share": {"value": 7.5, "unit": "%"}}}, None).detail
    'x.share is 7.5% (threshold > 5%)'
    """
    condition = rule.condition
    if condition.kind == "new":
        return _evaluate_new(rule, status, before)
    now_values = _values(status, condition.subject) or {}
    before_values = _values(before, condition.subject) if before is not None else None
    unit = _unit(status, condition.subject) or _unit(before or {}, condition.subject)
    threshold = f"{condition.op} {condition.amount_text()}".replace("_", " ")
    holding, not_computed, no_before, lines = [], 0, 0, []
    for name, value in sorted(now_values.items()):
        was = None if before_values is None else before_values.get(name)
        if value is None:
            not_computed += 1
            continue
        if condition.kind == "threshold":
            holds = _OPS[condition.op](float(value), float(condition.amount or 0))
        elif was is None:
            no_before += 1
            continue
        else:
            holds = _holds_change(rule, float(value), float(was))
        if holds:
            holding.append(name)
            lines.append(
                f"{_shown(status, name)} is {format_value(float(value), unit)}"
                + (f" (before {format_value(float(was), unit)})" if was is not None else "")
            )
    if not holding and now_values and not_computed == len(now_values):
        return Finding(None, detail=f"{condition.subject}: not computed in this run")
    if not holding and now_values and not_computed + no_before == len(now_values):
        return Finding(None, detail=f"{condition.subject}: nothing to compare with")
    single = len(now_values) == 1 and family(condition.subject)[1] != "*"
    name = next(iter(now_values), condition.subject)
    now_value, was_value = now_values.get(name), (before_values or {}).get(name)
    now_text = format_value(now_value, unit) if single and now_value is not None else ""
    before_text = format_value(was_value, unit) if single and was_value is not None else ""
    if not holding:
        if not now_values and family(condition.subject)[1] == "*":
            detail = f"no {condition.subject} in this run (threshold {threshold})"
        elif single or not now_values:
            said = now_text and f"{condition.subject} is {now_text}"
            said = said or f"{condition.subject}: {_absent(status, condition.subject)}"
            detail = f"{said} (threshold {threshold})"
        else:
            detail = f"0 of {len(now_values)} hold ({threshold})"
            if condition.kind == "threshold":  # the part nearest to holding
                low = condition.op.startswith("<")
                known = [(v, n) for n, v in now_values.items() if v is not None]
                value, part = min(known) if low else max(known)
                shown = f"{_shown(status, part)} is {format_value(float(value), unit)}"
                detail += f"; the {'lowest' if low else 'highest'}: {shown}"
            now_text = f"0 of {len(now_values)}"
        return Finding(False, now_text, before_text, threshold, detail)
    if single:
        detail = f"{lines[0]} (threshold {threshold})".replace(") (threshold", "; threshold")
    else:
        said = listed(lines[:SHOWN_MEMBERS], len(lines))
        detail = f"{len(holding)} of {len(now_values)} hold ({threshold}): {said}"
        now_text = f"{len(holding)} of {len(now_values)}"
    return Finding(True, now_text, before_text, threshold, detail)


def _slug(report: str, label: str) -> str:
    name = f"{report}--{label}" if label else report
    return file_safe(name)


def _state_file(out: Path, report: str, label: str) -> Path:
    return out / ALERT_DIR / f"{_slug(report, label)}.json"


def _read_state(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_state(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(state, indent=2), encoding="utf-8")
    tmp.replace(path)


def firing_alerts(out_dir: str | os.PathLike[str]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The alerts that hold now, by report and label (index.html shows them).

    Examples
    --------
    >>> firing_alerts("reports")  # doctest: +SKIP
    {('fleet_inventory', ''): [{'title': 'fleet.offline_share > 5%', ...}]}
    """
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for path in sorted((Path(out_dir) / ALERT_DIR).glob("*.json")):
        state = _read_state(path)
        key = (str(state.get("report", "")), str(state.get("label") or ""))
        rules = state.get("rules") or {}
        firing = [
            dict(item) for item in rules.values() if isinstance(item, dict) and item.get("firing")
        ]
        if firing:
            found[key] = firing
    return found


def _step(item: dict[str, Any], rule: Rule, finding: Finding, started: str) -> str:
    """Advance one rule's state by a finding; the event: ``fired``, ``cleared`` or ``""``."""
    if finding.holds is None:
        return ""
    if not finding.holds:
        item["holding"] = 0
        if item.get("firing"):
            item["firing"] = False
            return "cleared"
        return ""
    item["holding"] = int(item.get("holding", 0)) + 1
    if not item.get("firing") and item["holding"] >= rule.for_runs:
        item["firing"], item["since"] = True, started
        return "fired"
    return ""


def after_run(
    result: RunResult, alerting: Alerting | None, out_dir: Path, *, profile: str | None
) -> None:
    """Evaluate the rules of the run's report and label, update their state, tell the
    targets of each rule that fired or cleared; record it all in the run's status.json
    (``alerts``). Called while the run holds its report's lock."""
    rules = rules_for(alerting.rules if alerting else (), result.report, result.label)
    if not rules:
        return
    path = _state_file(out_dir, result.report, result.label)
    state = _read_state(path)
    saved = state.get("rules") or {}
    published = result.metrics or result.sets
    status = asdict(result) if result.outcome in COUNTED and published else None
    before = None
    if status is not None and result.changes:  # the run the changes were counted against
        with contextlib.suppress(RunNotFound):
            before = read_run(result.changes["against"]["run_dir"])
    kept: dict[str, Any] = {}
    records = []
    for rule in rules:
        item = dict(saved.get(rule.id) or {})
        item.update({"title": rule.title, "when": rule.when, "for_runs": rule.for_runs})
        finding = evaluate(rule, status, before) if status is not None else Finding(None)
        event = _step(item, rule, finding, result.started_at)
        if finding.holds is not None:
            item.update(
                {"detail": finding.detail, "now": finding.now, "before": finding.before,
                 "threshold": finding.threshold, "run_dir": result.run_dir,
                 "checked_at": result.started_at}
            )  # fmt: skip
        kept[rule.id] = item
        record: dict[str, Any] = {
            "rule": rule.id, "title": rule.title, "where": rule.where, "holds": finding.holds,
            "firing": bool(item.get("firing")), "event": event, "detail": finding.detail,
            "now": finding.now, "before": finding.before, "threshold": finding.threshold,
        }  # fmt: skip
        if event:
            urls = rule.notify or (alerting.urls if alerting else ())
            record["notify"] = _tell(rule, event, finding, result, urls, out_dir, profile)
        records.append(record)
    _write_state(path, {"report": result.report, "label": result.label, "rules": kept})
    result.alerts = records
    write_status(result)


def compose_alert(
    rule: Rule, event: str, finding: Finding, result: RunResult, *, index: str = ""
) -> tuple[str, str]:
    """The message of a rule that fired or cleared: its title and body.

    Examples
    --------
    >>> compose_alert(rule, "fired", finding, result)[0]  # doctest: +SKIP
    'fleet_inventory alert: fleet.offline_share > 5%: now 7.2%, before 4.1%'
    """
    verb = "alert" if event == "fired" else "cleared"
    values = [
        f"now {finding.now}" if finding.now else "",
        f"before {finding.before}" if finding.before else "",
    ]
    shown = ", ".join(v for v in values if v)
    title = f"{result.name} {verb}: {rule.title}" + (f": {shown}" if shown else "")
    held = f" (held on {rule.for_runs} consecutive runs)" if rule.for_runs > 1 else ""
    lines = [
        (
            f"Alert: {rule.when}{held}"
            if event == "fired"
            else f"Cleared: {rule.when} no longer holds"
        ),
        f"Report: {result.name}" + (f" (run-all entry {result.label})" if result.label else ""),
        f"Now: {finding.now or '-'}; before: {finding.before or '-'}; "
        f"threshold: {finding.threshold or '-'}",
        f"  {finding.detail}",
        f"Rule: {rule.where or rule.id}",
        f"Run: {result.run_dir}, started {when_text(result.started_at)}",
    ]
    if result.platform:
        from opslib.reports.platform import Platform

        platform = Platform.from_dict(result.platform)
        lines.append(f"Platform: {platform.name}; account {platform.account}")
    lines += ["", *changes_lines(result.changes)]
    if result.html:
        lines += ["", f"report: {result.html}"]
    if index:
        lines.append(f"Index: {index}")
    return title.replace("\n", " "), "\n".join(lines).rstrip()


def _tell(
    rule: Rule,
    event: str,
    finding: Finding,
    result: RunResult,
    urls: Sequence[str],
    out_dir: Path,
    profile: str | None,
) -> dict[str, Any]:
    from opslib.reports.notify import deliver, known_secrets, summary

    if not urls:
        return summary([])
    title, body = compose_alert(rule, event, finding, result, index=str(out_dir / "index.html"))
    deliveries = deliver(
        urls, title, body, reports=[(result.name, result.html)],
        secrets=known_secrets(profile), kind="warning" if event == "fired" else "success",
    )  # fmt: skip
    return summary(deliveries)


def send_sample(rule: Rule, urls: Sequence[str], *, profile: str | None) -> dict[str, Any]:
    """``opslib alerts test``: one sample message of ``rule`` to its targets (nothing
    attached), so that a person sees what an alert looks like where it lands."""
    from opslib.reports.notify import deliver, known_secrets, summary

    sample = RunResult(
        report=rule.report, notebook=rule.notebook, parameters={}, outcome="ok",
        started_at="(sample)", finished_at="", duration_s=0.0, run_dir="(sample run)",
        output_notebook="", label=rule.label or "",
    )  # fmt: skip
    finding = Finding(
        True,
        "(sample)",
        "(sample)",
        rule.condition.amount_text() or "any new",
        f"a sample of {rule.when}: no report was run",
    )
    title, body = compose_alert(rule, "fired", finding, sample)
    deliveries = deliver(
        urls, f"[sample] {title}", body, reports=[], secrets=known_secrets(profile), kind="info"
    )
    return summary(deliveries)
