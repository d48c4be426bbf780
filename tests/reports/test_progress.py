"""Progress as it goes: a line as each report starts and ends, and with --verbose as each
section ends, flushed while the run runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .test_runner import opslib_cli


def test_a_run_prints_its_start_and_sections_while_it_runs(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "opslib.cli", "report", "run", "quick", "-p", "sleep_s", "6",
         "--verbose", "--out", str(tmp_path)],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    started = proc.stdout.readline()
    first_section = proc.stdout.readline()
    running = proc.poll() is None  # both lines came while the report was sleeping
    rest, _ = proc.communicate(timeout=240)
    assert running
    assert re.fullmatch(
        rf"quick: started on OPSLIB_\* environment \(127\.0\.0\.1:\d+\) in {tmp_path}/quick/\S+\n",
        started,
    )
    assert re.fullmatch(r"quick: section 'Quick' took \d+\.\d s\n", first_section)
    lines = rest.splitlines()
    assert re.fullmatch(r"quick: section 'Waiting' took (\d+\.\d) s", lines[0])
    assert float(lines[0].split()[-2]) >= 6  # the section that slept
    assert re.fullmatch(r"quick: section 'The failure point' took \d+\.\d s", lines[1])
    assert re.fullmatch(rf"quick: ok \(\d+\.\d s\) {tmp_path}/quick/\S+/quick\.html", lines[2])
    assert proc.returncode == 0


def test_without_verbose_one_line_at_start_and_one_at_end(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text(
        '[[run]]\nreport = "quick"\nlabel = "a"\n\n'
        '[[run]]\nreport = "quick"\nlabel = "b"\nparameters = { fail = true }\n'
    )
    done = opslib_cli(
        "report", "run-all", "--config", str(config), "--out", str(tmp_path / "o"), env_extra=env
    )
    out = done.stdout.splitlines()
    assert out[0].startswith("quick/a: started on OPSLIB_* environment")
    assert re.fullmatch(r"quick/a: ok \(\d+\.\d s\) \S+/quick\.html", out[1])
    assert out[2].startswith("quick/b: started on ")
    assert not any("section" in line for line in out)
    assert done.stderr.startswith("quick/b: failed after ")  # the end line of a failure
    assert "  report: " in done.stderr
