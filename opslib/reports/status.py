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

__all__ = ["SECRET_NAME", "STATUS_FILE", "RunResult", "redact", "write_status"]

STATUS_FILE = "status.json"
SECRET_NAME = re.compile(r"secret|password|passwd|token|credential|api_?key", re.IGNORECASE)


@dataclass
class RunResult:
    """What a run did; written as ``status.json`` in its directory.

    ``outcome`` is ``ok``, ``failed`` or ``timeout``. ``failing_cell`` (index, execution
    count and the start of its source) and ``error`` (name, value, last traceback lines)
    are set when it did not succeed.
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

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, default=str)

    def summary(self) -> str:
        """One paragraph for stderr: where it failed and why."""
        if self.ok:
            return f"{self.report}: ok in {self.duration_s:.1f} s -> {self.html}"
        lines = [f"{self.report}: {self.outcome} after {self.duration_s:.1f} s"]
        if self.failing_cell:
            cell = self.failing_cell
            lines.append(
                f"  failing cell: #{cell.get('index')} (In [{cell.get('execution_count')}])"
            )
            source = str(cell.get("source", "")).strip()
            if source:
                lines.extend("    | " + line for line in source.splitlines()[:8])
        if self.error:
            lines.append(f"  error: {self.error.get('ename')}: {self.error.get('evalue')}")
        lines.append(f"  report: {self.html or self.output_notebook}")
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
    from opslib.analysis.users import mask_phone

    out: dict[str, Any] = {}
    for name, value in parameters.items():
        if SECRET_NAME.search(name):
            out[name] = "***"
        elif "phone" in name.lower():
            out[name] = mask_phone(value)
        else:
            out[name] = value
    return out
