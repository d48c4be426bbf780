"""``make test`` as the Makefile runs it, with stand-ins for ruff, mypy and pytest in a
venv of the test's own: mypy runs while the tests run, its report follows theirs, and
either failing fails ``make test``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
WAIT = "for i in $(seq 200); do [ -e {flag} ] && break; sleep 0.05; done; [ -e {flag} ] ||"


def stand_ins(tmp_path: Path, *, tests_exit: int, mypy_exit: int) -> Path:
    """A venv whose mypy and pytest each wait up to 10 s for the other to have started."""
    venv, seen = tmp_path / "venv", tmp_path / "seen"
    (venv / "bin").mkdir(parents=True)
    seen.mkdir()
    mypy_started, tests_started = seen / "mypy", seen / "tests"
    scripts = {
        "ruff": "exit 0",
        "mypy": f"touch {mypy_started}; {WAIT.format(flag=tests_started)} exit 3\n"
        f"sleep 0.3; echo 'mypy: its report'; exit {mypy_exit}",
        "pytest": f"touch {tests_started}; {WAIT.format(flag=mypy_started)} exit 3\n"
        f"echo 'pytest: its report'; exit {tests_exit}",
    }
    for name, body in scripts.items():
        path = venv / "bin" / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    (venv / ".installed-stamp").touch()  # newer than pyproject.toml: nothing to install
    return venv


def make_test(venv: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "test", f"VENV={venv}", "WORKERS=1"],
        env={**os.environ, "CHROMIUM": sys.executable},  # a browser there: left alone
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_mypy_runs_beside_the_tests_and_its_report_follows_theirs(tmp_path: Path) -> None:
    done = make_test(stand_ins(tmp_path, tests_exit=0, mypy_exit=0))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.index("pytest: its report") < done.stdout.index("mypy: its report")


@pytest.mark.parametrize(("tests_exit", "mypy_exit"), [(1, 0), (0, 1), (1, 1)])
def test_either_failing_fails_make_test(tmp_path: Path, tests_exit: int, mypy_exit: int) -> None:
    done = make_test(stand_ins(tmp_path, tests_exit=tests_exit, mypy_exit=mypy_exit))
    assert done.returncode != 0
    assert "pytest: its report" in done.stdout
    assert "mypy: its report" in done.stdout  # read even when the tests failed
