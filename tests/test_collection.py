"""The suite as ``make test`` runs it: pytest-xdist sends tests to workers by node id, so
two tests with one id would run once. Every collected id must be unique."""

from __future__ import annotations

import collections
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent


def test_every_collected_test_has_its_own_node_id() -> None:
    listing = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            str(TESTS),
        ],
        capture_output=True,
        text=True,
        cwd=TESTS.parent,
        check=True,
    ).stdout
    ids = [line for line in listing.splitlines() if "::" in line]
    assert len(ids) > 2000, listing[-2000:]
    twice = [nodeid for nodeid, n in collections.Counter(ids).items() if n > 1]
    assert not twice, twice
