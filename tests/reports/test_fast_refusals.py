"""A misspelt parameter, value, report or id is refused at once, with "did you mean".

"At once" is measured by what the refusal imports (nothing heavy: no pandas, no papermill)
and by the processor time of the process, which a busy machine does not inflate the way
it does wall time; the wall time is printed.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from opslib.reports import ParameterError, check_parameters, find_notebook, run_report
from opslib.reports._discovery import ReportNotFound
from opslib.reports.locks import OutDirUnusable

from .test_locks import HEAVY, _split_importtime

LIMIT_S = 2.0  # processor time of a refusal, interpreter start included


def _timed(
    *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """``python -X importtime -m opslib.cli ARGS``: the process, its processor and wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "opslib.cli", *args],
        env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, cpu, wall


def _refusal(*args: str) -> str:
    """The one line ``opslib ARGS`` says when it refuses (exit 2)."""
    done, _, _ = _timed(*args)
    assert done.returncode == 2, done.stderr
    _, lines = _split_importtime(done.stderr)
    assert len(lines) == 1, lines
    return lines[0]


def test_a_misspelt_parameter_is_refused_at_once_naming_the_right_one(tmp_path: Path) -> None:
    done, cpu, wall = _timed(
        "report", "run", "event_analysis", "-p", "strat", "-1d", "--out", str(tmp_path / "out")
    )
    assert done.returncode == 2
    imported, lines = _split_importtime(done.stderr)
    assert lines == [
        "opslib report run: unknown parameter 'strat' (did you mean 'start'?); valid "
        "parameters: start, end, device_id, user_id, users, event_types, freq, tz, "
        "interactive, output_dir, source, store; nothing was run"
    ]
    assert not HEAVY & imported, sorted(HEAVY & imported)  # no notebook machinery, no pandas
    assert cpu < LIMIT_S, cpu
    assert not (tmp_path / "out").exists()
    print(f"\nrefused in {wall:.2f} s ({cpu:.2f} s of processor)")


def test_report_list_is_quick_and_reads_no_notebook_machinery() -> None:
    done, cpu, wall = _timed("report", "list")
    assert done.returncode == 0, done.stderr
    imported, _ = _split_importtime(done.stderr)
    assert not HEAVY & imported, sorted(HEAVY & imported)
    assert cpu < LIMIT_S, cpu
    assert "    start: str = '-7d'" in done.stdout
    assert "    tz: str = ''" in done.stdout
    print(f"\nreport list in {wall:.2f} s ({cpu:.2f} s of processor)")


def test_a_misspelt_report_or_value_gets_the_nearest_one() -> None:
    with pytest.raises(
        ReportNotFound, match=r"'fleet_inventry' \(did you mean 'fleet_inventory'\?\)"
    ):
        find_notebook("fleet_inventry")
    events = find_notebook("event_analysis")
    fleet = find_notebook("fleet_inventory")
    cases = [
        (events, {"event_types": "alarms"}, "not an event type (did you mean 'alarm'?)"),
        (events, {"tz": "Asia/Shangai"}, "'Asia/Shangai' (did you mean 'Asia/Shanghai'?)"),
        (events, {"start": "2026-02-30"}, "not a calendar date"),
        (fleet, {"status": "onlin"}, "not a device status (did you mean 'online'?)"),
    ]  # fmt: skip
    for notebook, given, said in cases:
        with pytest.raises(ParameterError) as info:
            check_parameters(notebook, given)
        assert said in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("report", "name", "value", "said"),
    [
        ("fleet_inventory", "product_id", "p-nonexistent", "the platform has no such product"),
        # a kernel started, then the run failed: "No devices match the selection: category 99"
        ("fleet_inventory", "category_id", "99", "no such category; accepted: 0 for every"),
        ("fleet_inventory", "product_id", "p-sensor-2", "(did you mean 'p-sensor-02'?)"),
        ("event_analysis", "device_id", "dev-0000", "the platform has no such device"),
        ("user_lookup", "user_id", "u-nobody", "the platform has no such user"),
        ("user_lookup", "identity_id", "nobody.zz", "the platform has no user of that identity"),
    ],
)
def test_an_id_the_platform_does_not_know_is_refused_before_any_kernel(
    tmp_path: Path, env: dict[str, str], report: str, name: str, value: str, said: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "opslib.cli", "report", "run", report, "-p", name, value,
         "--out", str(tmp_path / "out")],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"parameter {name!r} = {value!r}: {said}" in done.stderr or said in done.stderr
    assert done.stderr.rstrip().endswith("nothing was run")
    assert not (tmp_path / "out").exists()  # no run directory, no kernel


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [
        ("--run-timeout", "-1", "-1.0"),
        ("--run-timeout", "nan", "nan"),
        ("--cell-timeout", "0", "0.0"),
    ],
)
def test_a_timeout_that_is_not_seconds_is_refused_before_anything_runs(
    tiny: Path, tmp_path: Path, option: str, value: str, shown: str
) -> None:
    out = tmp_path / "out"
    assert _refusal("report", "run", "quick", "--demo", option, value, "--out", str(out)) == (
        f"opslib report run: {option} = {shown}: not a timeout; accepted: seconds, a number "
        "above zero; nothing was run"
    )
    assert not out.exists()


@pytest.mark.parametrize("seconds", [0, -5, float("nan"), float("inf"), True, "600"])
def test_run_report_refuses_a_timeout_that_is_not_seconds(
    tiny: Path, tmp_path: Path, seconds: object
) -> None:
    out = tmp_path / "out"
    with pytest.raises(ParameterError, match=r"^run_timeout = .*: not a timeout; accepted"):
        run_report("quick", demo=True, out_dir=out, run_timeout=seconds)  # type: ignore[arg-type]
    assert not out.exists()


def test_a_run_all_file_with_a_bad_timeout_is_refused_naming_the_file_and_key(
    tiny: Path, tmp_path: Path
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text('cell_timeout = -5\n\n[[run]]\nreport = "quick"\n', encoding="utf-8")
    out = tmp_path / "out"
    assert _refusal("report", "run-all", "--config", str(config), "--demo", "--out", str(out)) == (
        f"opslib report run-all: {config}: cell_timeout = -5: not a timeout; accepted: seconds, "
        "a number above zero; nothing was run"
    )
    assert not out.exists()


def test_a_reports_directory_that_cannot_be_made_is_refused_before_anything_runs(
    tiny: Path, tmp_path: Path
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    out = a_file / "reports"
    for args in (("report", "run", "quick"), ("report", "run-all"), ("demo",)):
        demo = ("--demo",) if args[0] == "report" else ()
        command = " ".join(args[:2]) if args[0] == "report" else "demo"
        assert _refusal(*args, *demo, "--out", str(out)) == (
            f"opslib {command}: reports directory {out}: cannot write there: Not a directory; "
            "nothing was run"
        )
    with pytest.raises(OutDirUnusable, match="cannot write there: Not a directory"):
        run_report("quick", demo=True, out_dir=out)
    assert a_file.read_text() == ""


def test_prune_names_the_file_it_cannot_write(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    (out / "index.html.tmp").mkdir(parents=True)  # where the index is written first
    assert _refusal("report", "prune", "--out", str(out), "--keep", "1") == (
        f"opslib report prune: cannot write {out / 'index.html.tmp'}: Is a directory"
    )


@pytest.mark.parametrize("label", ["../../escaped", "a/b", "a b"])
def test_a_label_that_is_not_a_name_is_refused_and_nothing_is_written(
    tiny: Path, tmp_path: Path, label: str
) -> None:
    out = tmp_path / "out"
    assert _refusal("report", "run", "quick", "--demo", "--label", label, "--out", str(out)) == (
        f"opslib report run: label may hold only A-Z a-z 0-9 _ . -, got {label!r}; nothing was run"
    )
    assert not out.exists()
    assert not (tmp_path / "escaped").exists()


def test_products_export_refuses_a_directory_and_a_place_it_cannot_write(
    tmp_path: Path, platform: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from opslib.cli import main

    from .runs import platform_env

    for name, value in platform_env(platform).items():
        monkeypatch.setenv(name, value)
    # --force used to be the advice for a directory, and /proc ended in a traceback.
    assert main(["products", "export", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"opslib products export: {tmp_path} is a directory; give a file path such as "
        "products.csv\n"
    )
    assert main(["products", "export", "/proc/opslib-products.csv"]) == 2
    assert capsys.readouterr().err == (
        "opslib products export: cannot write /proc/opslib-products.csv: No such file or "
        "directory; nothing was written\n"
    )
