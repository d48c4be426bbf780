"""The runner on tiny notebooks: parameters, outcomes, timeouts, status, HTML, CLI, run-all."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from opslib.reports import (
    ParameterError,
    ReportNotFound,
    ReportParameter,
    UnknownParameterError,
    coerce_value,
    inspect_report,
    redact,
    run_report,
    validate_parameters,
)
from opslib.reports._process import descendants
from opslib.reports.runall import ConfigFileError, check_specs, load_config, run_all, write_index

# --- parameters --------------------------------------------------------------------------


def test_inspect_reads_types_defaults_and_help(tiny: Path) -> None:
    params = inspect_report(tiny)
    assert list(params) == ["n", "fail", "sleep_s", "tags", "interactive", "output_dir"]
    assert params["n"] == ReportParameter("n", "int", 3, "how many bars")
    assert params["tags"].type == "list[str]"
    assert params["tags"].default == []
    assert params["sleep_s"].describe() == "sleep_s: float = 0.0  # seconds to sleep in the middle"


@pytest.mark.parametrize(
    ("kind", "given", "expected"),
    [
        ("int", "14", 14),
        ("int", 14.0, 14),
        ("float", "2.5", 2.5),
        ("float", 3, 3.0),
        ("bool", "yes", True),
        ("bool", "0", False),
        ("bool", True, True),
        ("str", "-7d", "-7d"),
        ("str", 7, "7"),
        ("list[str]", "alarm, offline", ["alarm", "offline"]),
        ("list[str]", '["property report"]', ["property report"]),
        ("list[str]", ["a"], ["a"]),
        ("list[str]", "", []),
        ("list[int]", "1,2", [1, 2]),
    ],
)
def test_coerce_value(kind: str, given: object, expected: object) -> None:
    assert coerce_value(ReportParameter("p", kind, None, ""), given) == expected


@pytest.mark.parametrize(
    ("kind", "given", "message"),
    [
        ("int", "seven", "parameter 'p' expects an integer, got str 'seven'"),
        ("int", True, "parameter 'p' expects an integer"),
        ("int", 2.5, "parameter 'p' expects an integer"),
        ("bool", "maybe", "parameter 'p' expects a bool"),
        ("float", "fast", "parameter 'p' expects a number"),
        ("str", ["a"], "parameter 'p' expects a string"),
        ("list[str]", "[1,", "parameter 'p': '[1,' is not a JSON list"),
    ],
)
def test_coerce_value_names_the_parameter(kind: str, given: object, message: str) -> None:
    with pytest.raises(ParameterError, match=message.replace("[", r"\[").replace("(", r"\(")):
        coerce_value(ReportParameter("p", kind, None, ""), given)


def test_unknown_parameter_lists_the_valid_ones(tiny: Path) -> None:
    declared = inspect_report(tiny)
    with pytest.raises(UnknownParameterError) as info:
        validate_parameters(declared, {"nn": 1, "n": 2})
    assert str(info.value) == (
        "unknown parameter 'nn' (did you mean 'n'?); valid parameters: n, fail, sleep_s, tags, "
        "interactive, output_dir"
    )


def test_redact_hides_secrets_and_masks_phones() -> None:
    shown = redact({"client_secret": "s", "password": "p", "phone": "5550000003", "days": 7})
    assert shown == {"client_secret": "***", "password": "***", "phone": "555*****03", "days": 7}


# --- runs --------------------------------------------------------------------------------


def test_a_run_keeps_notebook_html_status_and_exports(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    result = run_report(
        "tiny", {"n": "5", "tags": "a,b"}, out_dir=tmp_path, cell_timeout=60, env=env
    )
    assert result.outcome == "ok", result.summary()
    run_dir = Path(result.run_dir)
    assert run_dir.parent == tmp_path / "tiny"
    assert Path(result.output_notebook).name == "tiny.ipynb"
    assert sorted(Path(p).name for p in result.exports) == ["tags.csv", "tags.parquet"]
    status = json.loads((run_dir / "status.json").read_text())
    assert status["outcome"] == "ok"
    assert status["parameters"]["n"] == 5
    assert status["parameters"]["tags"] == ["a", "b"]
    assert status["parameters"]["interactive"] is False  # unattended by default
    assert status["parameters"]["output_dir"] == str(run_dir)
    assert status["failing_cell"] is None
    assert status["duration_s"] > 0
    html = Path(result.html).read_text()
    assert "* plotly.js v" not in html  # shared beside the reports, not inside
    assert html.count('src="../../plotly-') == 1  # the one script loaded, from disk
    assert html.count("Plotly.newPlot(") == 1
    assert "not able to be represented" not in html
    assert "nb.setup(interactive" not in html  # code hidden
    assert '<header class="opslib-header"><h1>Tiny report</h1>' in html  # its heading


def test_the_runners_kernel_starts_as_any_kernel(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    import nbformat

    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}, **env}
    result = run_report("tiny", {}, out_dir=tmp_path, cell_timeout=60, env=env)
    assert result.outcome == "ok", result.summary()
    notebook = nbformat.read(result.output_notebook, as_version=4)
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "planted: []" in printed  # no import made to fail
    assert "startup file: \n" in printed  # no start-up hook of ours
    nbformat.validate(notebook)


def test_running_the_runner_leaves_the_import_system_alone(tiny: Path) -> None:
    code = "\n".join(
        [
            "import argparse, sys",
            "from opslib.reports.cli import report_command",
            "report_command(argparse.Namespace(report_command='list'))",
            "import jsonschema",
            "print('planted:', [name for name, module in sys.modules.items() if module is None])",
        ]
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "tiny  (" in out.stdout  # the command ran
    assert "planted: []" in out.stdout


def test_a_failing_run_names_the_section_and_the_error(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    result = run_report("quick", {"fail": True}, out_dir=tmp_path, env=env)
    assert result.outcome == "failed"
    assert result.failing_cell is not None
    assert "raise ValueError('quick failure')" in result.failing_cell["source"]
    assert result.failing_cell["execution_count"] == 4  # after the injected parameters
    assert result.failing_cell["section"] == "The failure point"
    assert result.error is not None
    assert result.error["ename"] == "ValueError"
    assert result.error["evalue"] == "quick failure"
    reason = "The report failed in section 'The failure point': ValueError: quick failure."
    assert result.reason == reason
    assert (
        result.summary().splitlines()[0]
        == f"quick: failed after {result.duration_s:.1f} s: {reason}"
    )
    html = Path(result.html).read_text()
    assert "ValueError" in html
    status = json.loads((Path(result.run_dir) / "status.json").read_text())
    assert status["outcome"] == "failed"
    assert status["reason"] == reason
    assert status["error"]["ename"] == "ValueError"


def test_the_whole_run_timeout_stops_the_kernel(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    before = set(descendants(os.getpid()))
    result = run_report("quick", {"sleep_s": 300}, out_dir=tmp_path, run_timeout=12, env=env)
    assert result.outcome == "timeout"
    assert result.duration_s < 40
    assert result.error == {"ename": "RunTimeout", "evalue": "the run took longer than 12 s"}
    assert result.failing_cell is not None
    assert result.failing_cell["status"] == "running"
    assert "time.sleep(sleep_s)" in result.failing_cell["source"]
    assert result.reason == "The run took longer than 12 s and was stopped in section 'Waiting'."
    assert Path(result.html).exists()
    assert set(descendants(os.getpid())) <= before  # the worker and its kernel are gone


def test_a_cell_timeout_fails_that_cell(tiny: Path, tmp_path: Path, env: dict[str, str]) -> None:
    result = run_report("quick", {"sleep_s": 300}, out_dir=tmp_path, cell_timeout=5, env=env)
    assert result.outcome == "failed"
    assert result.failing_cell is not None
    assert "time.sleep(sleep_s)" in result.failing_cell["source"]
    assert result.error is not None
    assert "Timeout" in str(result.error["ename"]) or "timed out" in str(result.error["evalue"])
    assert result.duration_s < 60


def test_refusals_happen_before_anything_runs(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    with pytest.raises(UnknownParameterError, match="valid parameters: n, fail"):
        run_report("tiny", {"N": 1}, out_dir=tmp_path, env=env)
    with pytest.raises(ParameterError, match="parameter 'n' expects an integer"):
        run_report("tiny", {"n": "many"}, out_dir=tmp_path, env=env)
    with pytest.raises(ReportNotFound, match=r"no report named 'nope'; reports: .*tiny"):
        run_report("nope", out_dir=tmp_path, env=env)
    assert not any(tmp_path.iterdir())


# --- command line ------------------------------------------------------------------------


def opslib_cli(
    *args: str, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "opslib.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_cli_list_shows_every_report_with_its_parameters(tiny: Path) -> None:
    done = opslib_cli("report", "list")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    reports = ("fleet_inventory", "event_analysis", "product_upkeep", "user_lookup", "tiny")
    for report in reports:
        assert f"{report}  (" in out
    assert "silent_days: int = 7" in out
    assert "a device with no report for this many days counts as silent" in out
    assert "event_types: list[str] = []" in out
    assert "n: int = 3" in out


def test_cli_run_refuses_unknown_and_mistyped_parameters_with_exit_2(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    out = str(tmp_path)
    unknown = opslib_cli(
        "report", "run", "tiny", "-p", "colour", "red", "--out", out, env_extra=env
    )
    assert unknown.returncode == 2
    assert "unknown parameter 'colour'; valid parameters: n, fail, sleep_s, tags" in unknown.stderr
    assert "nothing was run" in unknown.stderr
    mistyped = opslib_cli("report", "run", "tiny", "-p", "n", "three", "--out", out, env_extra=env)
    assert mistyped.returncode == 2
    assert "parameter 'n' expects an integer, got str 'three'" in mistyped.stderr
    missing = opslib_cli("report", "run", "no_such_report", "--out", out, env_extra=env)
    assert missing.returncode == 2
    bare = opslib_cli("report", "run", "tiny", "-p", "n", "--out", out, env_extra=env)
    assert bare.returncode == 2
    assert "-p 'n': give -p NAME VALUE or -p NAME=VALUE" in bare.stderr
    assert not any(tmp_path.iterdir())


def test_cli_run_exit_status_and_stderr(tiny: Path, tmp_path: Path, env: dict[str, str]) -> None:
    out = str(tmp_path)
    ok = opslib_cli("report", "run", "quick", "-p", "sleep_s", "0", "--out", out, env_extra=env)
    assert ok.returncode == 0, ok.stderr
    assert "quick: ok" in ok.stdout
    assert "status.json" in ok.stdout
    failed = opslib_cli("report", "run", "quick", "-p", "fail=true", "--out", out, env_extra=env)
    assert failed.returncode == 1
    assert failed.stderr.splitlines()[0].startswith("quick: failed after ")
    assert failed.stderr.splitlines()[0].endswith(
        ": The report failed in section 'The failure point': ValueError: quick failure."
    )
    assert "report: " in failed.stderr


# --- run-all -----------------------------------------------------------------------------


def test_run_all_carries_on_past_a_failed_report_and_indexes_every_run(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text(
        'out = "out"\ncell_timeout = 60\n\n'
        '[[run]]\nreport = "quick"\nlabel = "short"\nparameters = { sleep_s = 0.1 }\n\n'
        '[[run]]\nreport = "quick"\nlabel = "broken"\nparameters = { fail = true }\n\n'
        '[[run]]\nreport = "quick"\nlabel = "after"\n'
    )
    seen: list[str] = []
    batch = run_all(config, env=env, progress=lambda r: seen.append(f"{r.label}:{r.outcome}"))
    assert seen == ["short:ok", "broken:failed", "after:ok"]
    assert not batch.ok
    assert batch.stopped == ""
    assert batch.index == (tmp_path / "out" / "index.html").resolve()
    page = batch.index.read_text()
    # the parameters (with their defaults) as a sentence
    for text in (
        "Sleep s 0.1, fail False.",
        "Sleep s 0.0, fail True.",
        "quick/short",
        "quick/broken",
        "quick/after",
    ):
        assert text in page
    assert 'href="quick/' in page
    # The index lists every run found under the output directory, not only this batch.
    extra = tmp_path / "out" / "quick" / "20000101T000000Z"
    extra.mkdir()
    (extra / "status.json").write_text(json.dumps({"report": "quick", "outcome": "ok"}))
    assert "20000101T000000Z" in write_index(tmp_path / "out").read_text()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            'report = "quick"\nlabel = "typo"\nparameters = { nn = 1 }',
            "run 2 (quick/typo): unknown",
        ),
        ('report = "no_such_report"', "run 2 (no_such_report): no report named"),
        ('report = "window"\nparameters = { start = "2026-02-30" }', "not a calendar date"),
    ],
)
def test_run_all_refuses_a_bad_entry_before_any_report_runs(
    tiny: Path, tmp_path: Path, entry: str, message: str
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text(f'out = "out"\n[[run]]\nreport = "quick"\n\n[[run]]\n{entry}\n')
    with pytest.raises(ConfigFileError, match=re.escape(message)):
        run_all(config)  # no platform configured either: the entries are checked first
    done = opslib_cli("report", "run-all", "--config", str(config))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert message in done.stderr
    assert done.stderr.strip().endswith("nothing was run")
    assert not (tmp_path / "out").exists()


def test_cli_run_all_exits_1_when_a_report_fails(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text('[[run]]\nreport = "quick"\nparameters = { fail = true }\n')
    done = opslib_cli(
        "report", "run-all", "--config", str(config), "--out", str(tmp_path / "o"), env_extra=env
    )
    assert done.returncode == 1
    assert "0 of 1 reports ok; exit 1 (report); index:" in done.stdout
    assert (tmp_path / "o" / "index.html").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour = 1\n[[run]]\nreport = 'tiny'\n", "unknown keys ['colour']"),
        ("out = 'x'\n", "needs at least one [[run]] table"),
        ("[[run]]\nname = 'tiny'\n", "run 1 has unknown keys ['name']"),
        ("[[run]]\nreport = 'tiny'\nlabel = 'a b'\n", "label may hold only"),
        # Two entries of one report and label shared a run name, an index line and the
        # alert state: both ran, and the index showed only the last.
        (
            "[[run]]\nreport = 'tiny'\n[[run]]\nreport = 'tiny'\nlabel = 'b'\n[[run]]\n"
            "report = 'tiny.ipynb'\n",
            "tiny.ipynb. has the report and label of run 1; give each",
        ),
        ("[[run]\n", "cannot read"),
    ],
)
def test_run_all_file_errors_name_the_entry(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "reports.toml"
    config.write_text(text)
    with pytest.raises(ConfigFileError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(config)


def test_reports_whose_names_hold_dots_are_told_apart(tmp_path: Path) -> None:
    # Before: fleet.v1 and fleet.v2 were one report to the run-all file ("fleet": the
    # path's stem), so the second entry was refused as the first's twin.
    config = tmp_path / "reports.toml"
    config.write_text(
        "[[run]]\nreport = 'fleet.v1'\n[[run]]\nreport = 'fleet.v2'\n"
        "[[run]]\nreport = 'notebooks/fleet.v2.ipynb'\nlabel = 'b'\n"
    )
    _, specs = load_config(config)
    assert [s.report for s in specs] == ["fleet.v1", "fleet.v2", "notebooks/fleet.v2.ipynb"]
    config.write_text("[[run]]\nreport = 'fleet.v2'\n[[run]]\nreport = 'x/fleet.v2.ipynb'\n")
    with pytest.raises(ConfigFileError, match="has the report and label of run 1"):
        load_config(config)
    # A skipped entry's run was filed under "fleet", apart from fleet.v2's own runs.
    from opslib.reports._rundir import record_unrun

    skipped = record_unrun(
        tmp_path / "out", "x/fleet.v2.ipynb", label="", parameters={}, outcome="skipped",
        reason="the platform is down", cause=3,
    )  # fmt: skip
    assert skipped.report == "fleet.v2"
    assert Path(skipped.run_dir).parent.name == "fleet.v2"


def test_repo_run_all_file_is_valid() -> None:
    config = Path(__file__).parents[2] / "reports.toml"
    _, specs = load_config(config)
    assert {s.report for s in specs} == {
        "fleet_inventory", "event_analysis", "product_upkeep", "user_lookup",
    }  # fmt: skip
    assert len(check_specs(config, specs)) == len(specs)  # every value checked
