"""Why a run ended as it did: one table of causes, used as exit status and in status.json.

- 0 ``ok``: every report ran and did its job;
- 1 ``report``: a report failed in its own logic or data (a cell raised, the report said
  ``failed`` or ``partial``);
- 2 ``usage``: bad usage or parameters, refused before a kernel started (a report,
  parameter, role, profile or run-all file; nothing configured);
- 3 ``platform``: the platform could not be reached or refused the credentials;
- 4 ``runtime``: a timeout (of a cell or of the run), a dead kernel or worker;
- 5 ``locked``: another run holds the lock of the report or of run-all.

A wrapper retries 3, 4 and 5 later and calls a person for 1 and 2. ``run-all`` exits with
the most severe cause among its reports, in the order of :data:`SEVERITY` (what needs a
person first, then what a retry may fix).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["PLATFORM_ERRORS", "RUNTIME_ERRORS", "SEVERITY", "Cause", "cause_of", "worst"]


class Cause(enum.IntEnum):
    """The cause of a run's end; its value is the exit status.

    Examples
    --------
    >>> Cause.LOCKED, int(Cause.LOCKED), Cause.LOCKED.label
    (<Cause.LOCKED: 5>, 5, 'locked')
    """

    OK = 0
    REPORT = 1
    USAGE = 2
    PLATFORM = 3
    RUNTIME = 4
    LOCKED = 5

    @property
    def label(self) -> str:
        """The cause's name as status.json and the summaries print it (``report``...)."""
        return self.name.lower()


# Errors a report raises when the platform, not the report, failed.
PLATFORM_ERRORS = frozenset({"TransportError", "RequestTimeout", "AuthenticationError"})
# Errors of the machinery under a report: a cell or the kernel's start took too long, the
# kernel died.
RUNTIME_ERRORS = frozenset({"CellTimeoutError", "DeadKernelError", "TimeoutError", "RunTimeout"})
# Most severe first: what a person must fix, then what a retry may fix.
SEVERITY = (Cause.USAGE, Cause.REPORT, Cause.PLATFORM, Cause.RUNTIME, Cause.LOCKED, Cause.OK)


def cause_of(outcome: str, error: Mapping[str, Any] | None = None) -> Cause:
    """The cause of a run that ran (or started to): from its outcome and its error.

    ``skipped`` runs carry the cause they were skipped for; this gives the platform's.

    Examples
    --------
    >>> cause_of("failed", {"ename": "DeadKernelError"})
    <Cause.RUNTIME: 4>
    >>> cause_of("partial")
    <Cause.REPORT: 1>
    """
    ename = str((error or {}).get("ename") or "")
    if outcome == "ok":
        return Cause.OK
    if outcome == "timeout" or ename in RUNTIME_ERRORS:
        return Cause.RUNTIME
    if outcome == "skipped" or ename in PLATFORM_ERRORS:
        return Cause.PLATFORM
    return Cause.REPORT


def worst(causes: Iterable[int]) -> Cause:
    """The most severe of ``causes`` (:data:`SEVERITY`); ``OK`` when there are none.

    Examples
    --------
    >>> worst([0, 4, 1, 5])
    <Cause.REPORT: 1>
    """
    given = {Cause(c) for c in causes}
    return next((c for c in SEVERITY if c in given), Cause.OK)
