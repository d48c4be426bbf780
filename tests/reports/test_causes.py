"""Exit statuses by cause: each produced by a real cause, the same in status.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from opslib.reports.causes import Cause, cause_of, worst

from .conftest import KERNEL
from .test_platform import _free_port, write_config
from .test_runner import opslib_cli


def _status(out: Path) -> dict[str, Any]:
    (path,) = out.glob("*/*/status.json")
    return dict(json.loads(path.read_text()))


def _write_killer(path: Path) -> Path:
    """A notebook whose kernel kills itself (SIGKILL) in its second section."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = KERNEL
    params = nbformat.v4.new_code_cell("kill: bool = True  # kill the kernel")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Killer"),
        params,
        nbformat.v4.new_markdown_cell("## The end"),
        nbformat.v4.new_code_cell(
            "import os, signal\nif kill:\n    os.kill(os.getpid(), signal.SIGKILL)"
        ),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def test_the_table_and_its_order() -> None:
    assert [int(c) for c in Cause] == [0, 1, 2, 3, 4, 5]
    assert [c.label for c in Cause] == ["ok", "report", "usage", "platform", "runtime", "locked"]
    assert worst([]) is Cause.OK
    assert worst([Cause.LOCKED, Cause.RUNTIME]) is Cause.RUNTIME
    assert worst([Cause.PLATFORM, Cause.REPORT, Cause.OK]) is Cause.REPORT
    assert cause_of("failed", {"ename": "TransportError"}) is Cause.PLATFORM
    assert cause_of("failed", {"ename": "ValueError"}) is Cause.REPORT
    assert cause_of("timeout") is Cause.RUNTIME


def test_a_failing_cell_exits_1(tiny: Path, tmp_path: Path, env: dict[str, str]) -> None:
    done = opslib_cli(
        "report", "run", "quick", "-p", "fail", "true", "--out", str(tmp_path), env_extra=env
    )
    assert done.returncode == 1, done.stderr
    assert _status(tmp_path)["cause"] == 1


def test_a_killed_kernel_exits_4(tmp_path: Path, env: dict[str, str]) -> None:
    killer = _write_killer(tmp_path / "nb" / "killer.ipynb")
    out = tmp_path / "out"
    done = opslib_cli("report", "run", str(killer), "--out", str(out), env_extra=env)
    assert done.returncode == 4, done.stderr
    status = _status(out)
    assert status["outcome"] == "failed"
    assert status["cause"] == 4
    assert "DeadKernelError" in status["reason"]


def test_a_run_timeout_exits_4(tiny: Path, tmp_path: Path, env: dict[str, str]) -> None:
    done = opslib_cli(
        "report", "run", "quick", "-p", "sleep_s", "300", "--run-timeout", "8",
        "--out", str(tmp_path), env_extra=env,
    )  # fmt: skip
    assert done.returncode == 4, done.stderr
    status = _status(tmp_path)
    assert (status["outcome"], status["cause"]) == ("timeout", 4)


def test_a_stopped_platform_exits_3(
    tiny: Path, tmp_path: Path, platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{_free_port()}"  # nothing listens there
    monkeypatch.setenv(
        "OPSLIB_CONFIG", str(write_config(tmp_path / "c.toml", platform, base_url=url))
    )
    done = opslib_cli("report", "run", "quick", "--profile", "staging", "--out", str(tmp_path))
    assert done.returncode == 3, done.stderr
    assert f"cannot reach {url}" in done.stderr
    config = tmp_path / "reports.toml"
    config.write_text('[[run]]\nreport = "quick"\n\n[[run]]\nreport = "tiny"\n')
    batch = opslib_cli(
        "report", "run-all", "--config", str(config), "--profile", "staging",
        "--out", str(tmp_path / "batch"),
    )  # fmt: skip
    assert batch.returncode == 3
    assert "  quick: skipped, cause 3 platform" in batch.stdout
    assert "0 of 2 reports ok; exit 3 (platform)" in batch.stdout
    causes = [json.loads(p.read_text())["cause"] for p in (tmp_path / "batch").glob("*/*/*.json")]
    assert causes == [3, 3]


def test_a_bad_parameter_exits_2(tiny: Path, tmp_path: Path, env: dict[str, str]) -> None:
    done = opslib_cli(
        "report", "run", "window", "-p", "start", "2026-02-30", "--out", str(tmp_path),
        env_extra=env,
    )  # fmt: skip
    assert done.returncode == 2
    assert "not a calendar date" in done.stderr
    assert not any(tmp_path.iterdir())


def test_run_all_exits_with_the_most_severe_cause_and_lists_each(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    killer = _write_killer(tmp_path / "nb" / "killer.ipynb")
    config = tmp_path / "reports.toml"
    config.write_text(
        f'[[run]]\nreport = "{killer}"\n\n'
        '[[run]]\nreport = "quick"\nlabel = "broken"\nparameters = { fail = true }\n\n'
        '[[run]]\nreport = "quick"\nlabel = "fine"\n'
    )
    done = opslib_cli(
        "report", "run-all", "--config", str(config), "--out", str(tmp_path / "o"), env_extra=env
    )
    assert done.returncode == 1  # a report's own failure outranks a dead kernel
    lines = done.stdout.splitlines()
    assert "  killer: failed, cause 4 runtime" in lines
    assert "  quick/broken: failed, cause 1 report" in lines
    assert "  quick/fine: ok, cause 0 ok" in lines
    assert any(line.startswith("1 of 3 reports ok; exit 1 (report); index: ") for line in lines)
