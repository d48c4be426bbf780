"""What a probe learned: its findings, the dialect they make, the report and the TOML."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opslib.dialects import Dialect
from opslib.protocol.tables import dialect_to_toml

__all__ = ["Finding", "ProbeResult"]

CONFIDENCES = ("high", "medium", "low")


@dataclass(frozen=True)
class Finding:
    """One learned point: the dialect field, its value, how sure, and what was seen.

    ``confidence`` is ``"high"`` (seen directly), ``"medium"`` (inferred) or ``"low"``
    (not observable: the base dialect's value kept).

    Examples
    --------
    >>> print(Finding("paging.max_page_size", 100, "high", "asked 1000, served 100"))
    [  high] paging.max_page_size = 100: asked 1000, served 100
    """

    field: str
    value: Any
    confidence: str
    evidence: str

    def __str__(self) -> str:
        return f"[{self.confidence:>6}] {self.field} = {self.value!r}: {self.evidence}"


@dataclass
class ProbeResult:
    """What :func:`opslib.probe` learned: ``dialect`` and the findings behind it.

    Examples
    --------
    >>> result = ProbeResult("https://ops.example.com", Dialect.named("vendor"), base="vendor")
    >>> result.to_toml("plant")
    '[profiles.plant.dialect]\\nbase = "vendor"\\n'
    """

    base_url: str
    dialect: Dialect
    findings: list[Finding] = field(default_factory=list)
    base: str = "opslib"
    unchecked: list[str] = field(default_factory=list)
    """The points the dialect's provenance marks assumed that the probe could not check."""

    def to_toml(self, profile: str = "platform") -> str:
        """The ``[profiles.PROFILE.dialect]`` section, only what differs from the base."""
        return dialect_to_toml(self.dialect, profile, base=self.base)

    def report(self, profile: str = "platform") -> str:
        """The findings, one a line, then the section to paste."""
        lines = [f"opslib probe {self.base_url}", ""]
        lines += [str(f) for f in self.findings]
        lines += ["", f"# paste into config.toml (next to [profiles.{profile}]):", ""]
        lines.append(self.to_toml(profile).rstrip())
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.report()
