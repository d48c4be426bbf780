"""Alert rules: conditions on the figures a report publishes, declared in the configuration.

In the run-all file (``reports.toml``), for any report or for one entry, and in a profile of
the config file (``[[profiles.prod.alerts]]``, for ``report run`` and ``run-all`` with that
profile)::

    [[alerts]]
    report = "fleet_inventory"
    when = "fleet.offline_share > 5%"
    for_runs = 2            # must hold on 2 consecutive runs (no flapping)
    notify = ["mailto://ops@example.com"]

    [[run]]
    report = "event_analysis"
    label = "last-day"
    [[run.alerts]]          # this entry's runs only
    when = "new in events.fault_codes"

Conditions, on a metric or a set of :mod:`opslib.reports.metrics`:

- a threshold: ``fleet.offline_share > 5%``, ``events.alarms >= 100``,
  ``events.downtime_hours > 24h`` (``>``, ``>=``, ``<``, ``<=``; the unit is the metric's:
  ``%`` for a share, ``h`` for hours, none for a count);
- a change against the previous run of the same parameters: ``events.alarms rises_by
  50%`` (relative), ``fleet.online_share falls_by 10 pts`` (points of a share),
  ``events.downtime_hours rises_by 12h``, ``events.alarms rises_by 30`` (a count);
- a set gaining members: ``new in fleet.silent_devices``.

A family is named by one part (``events.fault_rate_by_product[p-sensor-02] > 20%``) or by
all of them (``[*]``: the condition holds when it holds for any part).

Every rule is checked before any kernel starts (:func:`check_rules`): a report that does
not exist, a metric or set it does not publish, a unit that is not the metric's, a
threshold that is not a number (or a share outside 0..100%), an unknown key: exit status
2 with one line naming the rule. How rules are evaluated after each run, and who is told,
is :mod:`opslib.reports._alerting`.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opslib.reports._names import report_name
from opslib.reports.metrics import UNITS, Catalogue, read_catalogue

__all__ = [
    "FORMS",
    "AlertConfigError",
    "Condition",
    "Rule",
    "check_rules",
    "load_rules",
    "parse_condition",
    "profile_rules",
    "rules_for",
    "rules_from_tables",
    "run_all_rules",
]

_KEYS = {"report", "label", "when", "for_runs", "notify", "name"}
_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*(?:\[[^\[\]\s]+\])?"
_AMOUNT = r"(?P<amount>[^\s%]+?)\s*(?P<unit>%|h|pts)?"
_THRESHOLD = re.compile(rf"^(?P<subject>{_NAME})\s*(?P<op>>=|<=|>|<)\s*{_AMOUNT}$")
_CHANGE = re.compile(rf"^(?P<subject>{_NAME})\s+(?P<op>rises_by|falls_by)\s+{_AMOUNT}$")
_NEW = re.compile(rf"^new\s+in\s+(?P<subject>{_NAME})$")
FORMS = (
    "METRIC > NUMBER (or >=, <, <=; with the metric's unit: 5%, 24h, 100), "
    "METRIC rises_by NUMBER% (or falls_by; or an amount: 30, 12h, 10 pts), "
    "new in SET"
)


class AlertConfigError(ValueError):
    """An alert rule is refused (exit status 2); the message names the rule."""


@dataclass(frozen=True)
class Condition:
    """A parsed ``when``: its ``kind`` (``threshold``, ``change``, ``new``), the metric or
    set it reads, the operator, the amount and its unit as written.

    Examples
    --------
    >>> parse_condition("fleet.offline_share > 5%").amount
    5.0
    """

    text: str
    kind: str
    subject: str
    op: str
    amount: float | None = None
    unit: str = ""

    @property
    def relative(self) -> bool:
        """A change in % of the previous value (``rises_by 50%``)."""
        return self.kind == "change" and self.unit == "%"

    def amount_text(self) -> str:
        """The threshold or change as written (``5%``, ``12 h``, ``10 pts``)."""
        if self.amount is None:
            return ""
        number = f"{self.amount:g}"
        return number + {"": "", "%": "%", "h": " h", "pts": " pts"}[self.unit]


@dataclass(frozen=True)
class Rule:
    """One alert: a report (and entry label, or every run of the report when None), its
    condition, how many consecutive runs it must hold, and whom to tell (Apprise URLs;
    none: the ``[notify]`` targets). ``where`` names it in messages (``reports.toml:
    alert 2``)."""

    report: str
    condition: Condition
    label: str | None = None
    for_runs: int = 1
    notify: tuple[str, ...] = ()
    name: str = ""
    where: str = ""
    notebook: str = field(default="", compare=False)

    @property
    def when(self) -> str:
        return self.condition.text

    @property
    def id(self) -> str:
        """The rule's identity in the alert state: report, label and condition."""
        scope = f"{self.report}/{self.label}" if self.label else self.report
        return f"{scope}: {self.when}" + (f" for {self.for_runs} runs" if self.for_runs > 1 else "")

    @property
    def title(self) -> str:
        """How messages name it: its ``name``, else its condition."""
        return self.name or self.when

    def applies(self, report: str, label: str) -> bool:
        """Whether the rule reads the runs of ``report`` with entry ``label``."""
        return self.report == report and (self.label is None or self.label == label)


def _number(text: str, what: str) -> float:
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} {text!r} is not a finite number")
    return value


def parse_condition(text: str) -> Condition:
    """Read a ``when`` as a person writes it.

    Raises
    ------
    ValueError
        Not one of the forms (:data:`FORMS`), or an amount that is not a number.

    Examples
    --------
    >>> parse_condition("new in fleet.silent_devices").kind
    'new'
    >>> parse_condition("events.alarms rises_by 50%").relative
    True
    """
    said = " ".join(str(text).split())
    if match := _NEW.match(said):
        return Condition(said, "new", match["subject"], "new in")
    for kind, pattern in (("threshold", _THRESHOLD), ("change", _CHANGE)):
        if match := pattern.match(said):
            what = "threshold" if kind == "threshold" else "change"
            amount = _number(match["amount"], what)
            return Condition(said, kind, match["subject"], match["op"], amount, match["unit"] or "")
    raise ValueError(f"cannot read {said!r}; write one of: {FORMS}")


def _unit_problem(condition: Condition, unit: str) -> str:
    """Why the amount's unit does not fit a metric of ``unit`` ("" when it fits)."""
    written, amount = condition.unit, condition.amount_text()
    if condition.relative:
        return ""
    wanted = {"": "", "%": "%", "h": "h"}[unit]
    if condition.kind == "change" and unit == "%":
        wanted = "pts"
    if written == wanted:
        return ""
    number = f"{condition.amount:g}"
    how = {"": number, "%": f"{number}%", "h": f"{number}h", "pts": f"{number} pts"}[wanted]
    extra = " (or a relative change in %)" if condition.kind == "change" else ""
    return (
        f"bad unit: {condition.subject} is {UNITS[unit]}, so {amount!r} does not fit; "
        f"write {how}{extra}"
    )


def _check_condition(condition: Condition, catalogue: Catalogue) -> None:
    """Refuse a condition the report cannot answer (unknown metric or set, unit, amount)."""
    from opslib.reports._suggest import did_you_mean

    subject = condition.subject
    if condition.kind == "new":
        if subject not in catalogue.sets:
            hint = did_you_mean(subject, catalogue.sets)
            known = ", ".join(catalogue.sets) or "none"
            raise ValueError(
                f"unknown set {subject!r}{hint}; {catalogue.report} publishes the sets: {known}"
            )
        return
    unit = catalogue.unit_of(subject)
    if unit is None:
        hint = did_you_mean(subject, catalogue.names())
        known = ", ".join(catalogue.names()) or "none"
        raise ValueError(f"unknown metric {subject!r}{hint}; {catalogue.report} publishes: {known}")
    problem = _unit_problem(condition, unit)
    if problem:
        raise ValueError(problem)
    amount = float(condition.amount or 0)
    if condition.kind == "change" and amount <= 0:
        raise ValueError(
            f"bad change {condition.amount_text()!r}: {condition.op} needs an amount above 0"
        )
    if condition.kind == "threshold" and unit == "%" and not 0 <= amount <= 100:
        raise ValueError(
            f"bad threshold {condition.amount_text()!r}: a share is between 0% and 100%"
        )
    if condition.kind == "threshold" and amount < 0:
        raise ValueError(f"bad threshold {condition.amount_text()!r}: {subject} is never below 0")


def _urls(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(u, str) and u for u in value):
        raise AlertConfigError(f"{where}: notify must be a list of Apprise URLs")
    return tuple(value)


def rules_from_tables(
    tables: Any,
    where: str,
    *,
    report: str | None = None,
    label: str | None = None,
    start: int = 1,
) -> list[Rule]:
    """Rules from a TOML array of ``[[alerts]]`` tables (``report`` and ``label`` given
    for an entry's own ``[[run.alerts]]``); their conditions are read, not yet checked
    against the reports (:func:`check_rules`).

    Raises
    ------
    AlertConfigError
        A key, a ``when``, ``for_runs`` or ``notify`` that is refused, naming the rule.

    Examples
    --------
    >>> rules_from_tables([{"report": "fleet_inventory", "when": "fleet.devices < 10"}],
    ...                   "reports.toml")[0].where
    'reports.toml: alert 1 (fleet_inventory: fleet.devices < 10)'
    """
    if not isinstance(tables, list):
        raise AlertConfigError(f"{where}: alerts must be [[alerts]] tables")
    rules = []
    for n, table in enumerate(tables, start=start):
        if not isinstance(table, dict):
            raise AlertConfigError(f"{where}: alert {n} must be a table")
        name = str(table.get("report") or report or "?")
        title = f"{where}: alert {n} ({name}: {table.get('when', '?')})"
        unknown = sorted(set(table) - _KEYS - ({"report", "label"} if report else set()))
        if report and ({"report", "label"} & set(table)):
            unknown = sorted({"report", "label"} & set(table)) + unknown
            raise AlertConfigError(
                f"{title}: an entry's alert reads that entry's runs; leave out {unknown}"
            )
        if unknown:
            raise AlertConfigError(f"{title}: unknown keys {unknown}; allowed: {sorted(_KEYS)}")
        if not (report or (isinstance(table.get("report"), str) and table["report"])):
            raise AlertConfigError(f'{title}: needs report = "<name>"')
        if not isinstance(table.get("when"), str) or not table["when"].strip():
            raise AlertConfigError(f'{title}: needs when = "<condition>"; write one of: {FORMS}')
        for_runs = table.get("for_runs", 1)
        if isinstance(for_runs, bool) or not isinstance(for_runs, int) or for_runs < 1:
            raise AlertConfigError(
                f"{title}: for_runs = {for_runs!r}; give a whole number, 1 or more"
            )
        try:
            condition = parse_condition(table["when"])
        except ValueError as exc:
            raise AlertConfigError(f"{title}: {exc}") from None
        entry_label = label if report else table.get("label")
        rules.append(
            Rule(
                report=name,
                condition=condition,
                label=None if entry_label is None else str(entry_label),
                for_runs=for_runs,
                notify=_urls(table.get("notify", []), title),
                name=str(table.get("name") or ""),
                where=title,
            )
        )
    return rules


def check_rules(rules: Sequence[Rule]) -> list[Rule]:
    """Each rule against what its report publishes (its notebook's metadata), before any
    kernel starts; returns the rules with their notebooks.

    Raises
    ------
    AlertConfigError
        One line naming the rule and what is wrong (did you mean, and what is known).

    Examples
    --------
    >>> check_rules(rules_from_tables([{"report": "fleet_inventory",
    ...                                 "when": "fleet.ofline_share > 5%"}], "reports.toml"))
    ...  # doctest: +SKIP
    Traceback (most recent call last):
    AlertConfigError: reports.toml: alert 1 (fleet_inventory: fleet.ofline_share > 5%):
    unknown metric 'fleet.ofline_share' (did you mean 'fleet.offline_share'?); ...
    """
    from opslib.reports._discovery import ReportNotFound, find_notebook

    checked, catalogues = [], {}
    for rule in rules:
        try:
            notebook = find_notebook(rule.report)
        except ReportNotFound as exc:
            raise AlertConfigError(f"{rule.where}: {exc}") from None
        key = str(notebook)
        if key not in catalogues:
            try:
                catalogues[key] = read_catalogue(notebook)
            except (OSError, ValueError) as exc:
                raise AlertConfigError(f"{rule.where}: {exc}") from None
        try:
            _check_condition(rule.condition, catalogues[key])
        except ValueError as exc:
            raise AlertConfigError(f"{rule.where}: {exc}") from None
        for url in rule.notify:
            if not _usable_url(url):
                raise AlertConfigError(
                    f"{rule.where}: notify {_masked(url)!r} is not an Apprise URL"
                )
        checked.append(_with_notebook(rule, key, notebook.stem))
    return checked


def _with_notebook(rule: Rule, notebook: str, stem: str) -> Rule:
    from dataclasses import replace

    return replace(rule, notebook=notebook, report=stem)


def _masked(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://***" if parts.password else url


def _usable_url(url: str) -> bool:
    import apprise

    return bool(apprise.Apprise().add(url))


def run_all_rules(doc: Mapping[str, Any], file: Path) -> list[Rule]:
    """The rules of a run-all file: its ``[[alerts]]``, then each entry's ``[[run.alerts]]``."""
    rules = rules_from_tables(doc.get("alerts", []), str(file))
    entries = [e for e in doc.get("run") or [] if isinstance(e, dict)]
    for rule in rules:  # a rule no entry of this file would ever evaluate
        labels = [str(e.get("label") or "") for e in entries if _same_report(e, rule.report)]
        if not labels:
            raise AlertConfigError(f"{rule.where}: no [[run]] of {rule.report} in this file")
        if rule.label is not None and rule.label not in labels:
            shown = ", ".join(repr(label) for label in labels)
            raise AlertConfigError(
                f"{rule.where}: no [[run]] of {rule.report} has label {rule.label!r} "
                f"(its labels: {shown})"
            )
    for n, entry in enumerate(doc.get("run") or [], start=1):
        if isinstance(entry, dict) and "alerts" in entry:
            label = str(entry.get("label") or "")
            rules += rules_from_tables(
                entry["alerts"], f"{file}: run {n}", report=str(entry.get("report") or "?"),
                label=label, start=1,
            )  # fmt: skip
    return rules


def _same_report(entry: Mapping[str, Any], report: str) -> bool:
    named = str(entry.get("report") or "")
    return named == report or report_name(named) == report


def profile_rules(profile: str | None) -> list[Rule]:
    """The ``[[profiles.NAME.alerts]]`` of the profile a connection would use
    (:func:`~opslib.client.profile_table`); none without a config file or profile.

    Raises
    ------
    AlertConfigError
        The file cannot be read, a profile asked for by name is not in it, or a rule is
        refused.
    """
    from opslib.client import config_path, profile_table
    from opslib.exceptions import ConfigError

    try:
        name, table = profile_table(profile)
    except ConfigError as exc:
        raise AlertConfigError(str(exc)) from None
    if "alerts" not in table:
        return []
    return rules_from_tables(table["alerts"], f"{config_path()}: [profiles.{name}]")


def load_rules(
    profile: str | None, *, run_all_file: str | os.PathLike[str] | None = None
) -> list[Rule]:
    """Every rule a run reads: the run-all file's (when given) and the profile's, checked.

    Raises
    ------
    AlertConfigError
        The first rule refused, named.
    """
    rules: list[Rule] = []
    if run_all_file is not None:
        file = Path(run_all_file)
        try:
            doc = tomllib.loads(file.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise AlertConfigError(f"cannot read {file}: {exc}") from None
        rules += run_all_rules(doc, file)
    rules += profile_rules(profile)
    return check_rules(rules)


def rules_for(rules: Iterable[Rule], report: str, label: str) -> list[Rule]:
    """The rules that read the runs of ``report`` with entry ``label``."""
    return [rule for rule in rules if rule.applies(report, label)]
