"""The suite as ``make test`` runs it: pytest-xdist sends tests to workers by node id, so
two tests with one id would run once. Every collected id must be unique: the root
conftest's ``pytest_collection_modifyitems`` gives Schemathesis's operations their ids back
and stops any run that collects an id twice. Here the one file that needs the former."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent


def _collect(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + [str(p) for p in paths],
        capture_output=True,
        text=True,
        cwd=TESTS.parent,
        check=False,
    )


def test_each_fuzzed_operation_has_its_own_node_id() -> None:
    listing = _collect(TESTS / "security" / "test_fuzz.py")
    assert listing.returncode == 0, listing.stdout[-2000:]
    ids = [line for line in listing.stdout.splitlines() if "test_fuzz_every_operation" in line]
    assert len(ids) == 19, listing.stdout[-2000:]  # the platform's 19 operations
    assert len(set(ids)) == 19, ids


class _Item:
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


def test_an_id_collected_twice_stops_the_run_naming_it() -> None:
    from conftest import pytest_collection_modifyitems

    items = [_Item("a.py::t"), _Item("a.py::u"), _Item("a.py::t")]
    with pytest.raises(pytest.UsageError, match=r"collected twice .*\['a.py::t'\]"):
        pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    pytest_collection_modifyitems(items[:2])  # type: ignore[arg-type]
