"""What a run did: :class:`RunResult`, written as ``status.json`` in its run directory.

Parameters are shown only through :func:`redact`: names that look secret are hidden and
phone numbers masked, so a status file, an HTML header and index.html never hold a secret.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from opslib.reports.causes import Cause

__all__ = [
    "OUTCOMES",
    "OUTCOME_MIMETYPE",
    "RUNNER_ENV",
    "SECRET_NAME",
    "STATUS_FILE",
    "RunResult",
    "redact",
    "write_status",
]

STATUS_FILE = "status.json"
OUTCOMES = ("ok", "partial", "failed", "timeout", "skipped")
# A notebook's word on its own outcome (opslib.reports.notebook.declare_outcome).
OUTCOME_MIMETYPE = "application/vnd.opslib.outcome+json"
# Set by the runner for its kernels: the exporter adds plotly.js, the notebook does not.
RUNNER_ENV = "OPSLIB_REPORT_RUN"
SECRET_NAME = re.compile(r"secret|password|passwd|token|credential|api_?key", re.IGNORECASE)


@dataclass
class RunResult:
    """What a run did; written as ``status.json`` in its directory.

    ``outcome`` is one of :data:`OUTCOMES`: ``ok``; ``partial`` (the report ran but says
    part of its work failed); ``failed``; ``timeout``; ``skipped`` (not run: the platform
    failed before it). Every outcome but ``ok`` has a one-sentence ``reason``.
    ``failing_cell`` (index, execution count, section heading, start of its source) and
    ``error`` (name, value, last traceback lines) are set when a cell failed. ``platform``
    names the platform and the account (:class:`~opslib.reports.platform.Platform`).
    ``cause`` is why it ended so, the exit status of ``opslib report run``
    (:class:`~opslib.reports.causes.Cause`: 0 ok, 1 report, 3 platform, 4 runtime,
    5 locked). ``notify`` counts the notification's deliveries (:mod:`opslib.reports.notify`):
    ``targets``, ``delivered`` and each ``undelivered`` target (secrets masked) with its error.
    ``sentence`` is the parameters as the report says them (its first screen's sentence).
    ``metrics`` and ``sets`` are the figures the report published (its headline,
    :mod:`opslib.reports.metrics`); ``changes`` compares them with the previous run of the
    same parameters (:mod:`opslib.reports.changes`); ``alerts`` is what each alert rule
    found in this run (:mod:`opslib.reports.alerts`).
    """

    report: str
    notebook: str
    parameters: dict[str, Any]
    outcome: str
    started_at: str
    finished_at: str
    duration_s: float
    run_dir: str
    output_notebook: str
    html: str = ""
    exports: list[str] = field(default_factory=list)
    failing_cell: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    profile: str = ""
    label: str = ""
    reason: str = ""
    platform: dict[str, Any] = field(default_factory=dict)
    cause: int = 0
    notify: dict[str, Any] = field(default_factory=dict)
    sentence: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    sets: dict[str, Any] = field(default_factory=dict)
    changes: dict[str, Any] | None = None
    alerts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, default=str)

    @property
    def name(self) -> str:
        """``report`` or ``report/label``."""
        return f"{self.report}/{self.label}" if self.label else self.report

    def summary(self) -> str:
        """A line for a good run; for another, what happened, where and why."""
        if self.ok:
            return f"{self.name}: ok ({self.duration_s:.1f} s) {self.html}"
        if self.outcome == "skipped" and self.cause == Cause.LOCKED:
            return f"{self.name}: skipped: {self.reason}"
        if self.outcome == "skipped":  # run-all says why the platform failed once
            return f"{self.name}: skipped"
        lines = [f"{self.name}: {self.outcome} after {self.duration_s:.1f} s: {self.reason}"]
        where = self.html or self.output_notebook or self.run_dir
        if where:
            lines.append(f"  report: {where}")
        return "\n".join(lines)


def write_status(result: RunResult) -> Path:
    """Write ``status.json`` into the result's run directory."""
    path = Path(result.run_dir) / STATUS_FILE
    path.write_text(result.to_json(), encoding="utf-8")
    return path


def redact(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters safe to show: secret-looking names hidden, phone numbers masked.

    Examples
    --------
    >>> redact({"phone": "5550000001", "api_token": "x", "days": 7})
    {'phone': '555*****01', 'api_token': '***', 'days': 7}
    """
    from opslib._phones import mask_phone

    out: dict[str, Any] = {}
    for name, value in parameters.items():
        if SECRET_NAME.search(name):
            out[name] = "***"
        elif "phone" in name.lower():
            out[name] = mask_phone(value)
        else:
            out[name] = value
    return out
