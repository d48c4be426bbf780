"""run-all on Dask workers: the serial runner's statuses, index and exit status, in parallel."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbformat
import pytest

from opslib.reports.distributed import DaskExecutor
from opslib.reports.platform import Connection, Platform
from opslib.reports.runall import RunSpec, run_all

from .conftest import write_quick_notebook
from .runs import platform_env
from .test_runner import opslib_cli

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

pytest.importorskip("distributed")

RUN_ALL = """\
out = "out"
cell_timeout = 60
run_timeout = 120

[[run]]
report = "quick"
label = "short"
parameters = { sleep_s = 0.2 }

[[run]]
report = "quick"
label = "broken"
parameters = { fail = true }

[[run]]
report = "platform_read"
label = "events"
"""


def _write_platform_notebook(path: Path) -> None:
    """A notebook that connects from its environment and reads a day of events."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    params = nbformat.v4.new_code_cell("days: int = 1  # how far back")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        params,
        nbformat.v4.new_code_cell(
            "import opslib\n"
            "events = opslib.connect().events.list(f'-{days}d')\n"
            "assert len(events) > 0, 'no events'"
        ),
    ]
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("distributed-notebooks")
    write_quick_notebook(directory / "quick.ipynb")
    _write_platform_notebook(directory / "platform_read.ipynb")
    return directory


@pytest.fixture(scope="module")
def run_env(platform: ServedPlatform, notebooks: Path) -> dict[str, str]:
    """What a worker's (and the serial runner's) environment holds: the platform, the notebooks."""
    return {**platform_env(platform), "OPSLIB_NOTEBOOKS": str(notebooks)}


@pytest.fixture(scope="module")
def scheduler(run_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A scheduler with 2 worker processes for the module, its workers configured like the
    machines of a real cluster: their own environment holds the connection settings."""
    import cloudpickle
    from distributed import LocalCluster

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # for _task_that_dies
    with LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        dashboard_address=None,
        env=run_env,
        local_directory=str(tmp_path_factory.mktemp("dask-work")),
    ) as cluster:
        yield cluster.scheduler_address
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def _rows(index: Path) -> list[tuple[str, ...]]:
    """(report, outcome, parameters) of each latest run in an index.html, sorted."""
    page = index.read_text(encoding="utf-8")
    latest = page[page.index('id="latest"') : page.index('id="history"')]
    pattern = (
        r'<tr class="[^"]*"><td>([^<]*)</td><td class="outcome">([^<]*)</td>.*?'
        r"<td>([^<]*)</td><td><a href="
    )
    return sorted(re.findall(pattern, latest))


def test_run_all_on_dask_gives_the_serial_statuses_and_index(
    scheduler: str,
    run_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in run_env.items():
        monkeypatch.setenv(key, value)
    config = tmp_path / "reports.toml"
    config.write_text(RUN_ALL)
    serial = run_all(config, out_dir=tmp_path / "serial")
    seen: list[str] = []
    parallel = run_all(
        config,
        out_dir=tmp_path / "dask",
        executor=DaskExecutor(scheduler),
        progress=lambda r: seen.append(r.label),
    )
    outcomes = [(r.report, r.label, r.outcome) for r in serial.results]
    assert outcomes == [
        ("quick", "short", "ok"),
        ("quick", "broken", "failed"),
        ("platform_read", "events", "ok"),
    ]
    assert [(r.report, r.label, r.outcome) for r in parallel.results] == outcomes
    assert sorted(seen) == sorted(r.label for r in serial.results)
    assert _rows(parallel.index) == _rows(serial.index)
    assert len(_rows(parallel.index)) == 3
    assert parallel.ok is serial.ok is False
    broken = next(r for r in parallel.results if r.label == "broken")
    assert broken.error is not None
    assert broken.error["evalue"] == "quick failure"
    assert Path(broken.run_dir).is_relative_to(tmp_path / "dask")
    assert (Path(broken.run_dir) / "status.json").exists()


def _task_that_dies(spec: RunSpec, **settings: Any) -> Any:
    raise RuntimeError(f"worker lost while running {spec.report}")


def test_a_task_that_fails_outright_is_a_failed_run(scheduler: str, tmp_path: Path) -> None:
    run = functools.partial(_task_that_dies, out_dir=tmp_path, connection=None)
    specs = [RunSpec("quick", label="a"), RunSpec("quick", label="b")]
    results = DaskExecutor(scheduler)(run, specs)
    assert [(r.label, r.outcome) for r in results] == [("a", "failed"), ("b", "failed")]
    assert results[0].error == {
        "ename": "RuntimeError",
        "evalue": "the Dask task failed: worker lost while running quick",
    }
    assert (
        results[0].reason == "The Dask task failed: RuntimeError: worker lost while running quick."
    )
    assert (Path(results[0].run_dir) / "status.json").exists()


def test_cli_workers_runs_a_local_cluster_with_the_serial_exit_status(
    run_env: dict[str, str], tmp_path: Path
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text(RUN_ALL.split('[[run]]\nreport = "platform_read"')[0])  # the quick ones
    done = opslib_cli(
        "report", "run-all", "--config", str(config), "--out", str(tmp_path / "o"),
        "--workers", "2",
        env_extra=run_env,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # a report failed, as in the serial run
    assert "1 of 2 reports ok; exit 1 (report); index:" in done.stdout
    assert len(_rows(tmp_path / "o" / "index.html")) == 2
    assert "quick/broken: failed" in done.stderr
    refused = opslib_cli("report", "run-all", "--config", str(config), "--workers", "0")
    assert refused.returncode == 2
    assert "workers must be a positive int" in refused.stderr


def test_secrets_never_enter_the_task_graph() -> None:
    env = {"OPSLIB_PASSWORD": "pw-123456", "OPSLIB_CLIENT_SECRET": "s-1", "OPSLIB_PHONE": "555"}
    connection = Connection(Platform(profile="x"), env)
    run = functools.partial(_task_that_dies, out_dir=Path("x"), connection=connection)
    task, secret = DaskExecutor(workers=2)._split_env(run)
    assert secret == {"OPSLIB_PASSWORD": "pw-123456", "OPSLIB_CLIENT_SECRET": "s-1"}
    assert task.keywords["connection"].env == {"OPSLIB_PHONE": "555"}  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"OPSLIB_CLIENT_SECRET.*their own credentials"):
        DaskExecutor("tcp://127.0.0.1:1")._split_env(run)
    with pytest.raises(ValueError, match="workers must be a positive int"):
        DaskExecutor(workers=0)
    # --workers 1000 started 1000 processes on a 2-CPU machine (leaked semaphores, no run)
    with pytest.raises(ValueError, match=r"workers 1000: this machine has \d+ CPUs .* at most"):
        DaskExecutor(workers=1000)
