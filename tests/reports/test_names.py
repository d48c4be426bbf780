"""opslib/reports/_names.py: the report a reference stands for, and file-safe text."""

from __future__ import annotations

import doctest
from pathlib import Path

from opslib.reports import _names


def test_the_examples_hold() -> None:
    failures, tried = doctest.testmod(_names)
    assert tried
    assert not failures


def test_a_run_directory_lock_and_alert_state_share_one_rule() -> None:
    from opslib.reports._alerting import _slug
    from opslib.reports.locks import RunLock

    assert _slug("fleet.v2", "last week") == "fleet.v2--last_week"
    assert RunLock(Path("out"), "fleet.v2/last week").path.name == "fleet.v2--last_week.lock"
