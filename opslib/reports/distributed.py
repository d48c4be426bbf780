"""Run the entries of a run-all file in parallel on Dask workers.

``opslib report run-all --workers N`` starts a local cluster of N worker processes;
``--dask tcp://scheduler:8786`` uses a running ``dask.distributed`` scheduler. Each entry is
one Dask task that calls the serial runner's own :func:`~opslib.reports.runall.run_spec`,
so every report is still its own papermill process (started by the worker that runs the
task) with its timeouts, run directory and ``status.json``. The driver prints each result
as it arrives and writes the same ``index.html``; the exit status is the serial one.

Workers write the run directories themselves: with a remote scheduler, ``--out`` must be a
path every worker and the driver see (a shared file system), and the workers need opslib,
the notebooks and their own connection settings (``OPSLIB_*`` or a config profile).

Secrets stay out of the task graph: environment entries whose names look secret
(``OPSLIB_PASSWORD``, ``OPSLIB_CLIENT_SECRET``...) are given to a local cluster's worker
processes when they start, not to the tasks; with a remote scheduler they are refused.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from opslib.reports._names import file_safe, report_name
from opslib.reports._rundir import record_unrun
from opslib.reports.causes import Cause
from opslib.reports.runall import RunSpec
from opslib.reports.status import SECRET_NAME, RunResult

__all__ = ["DaskExecutor"]

Run = Callable[..., RunResult]  # run(spec): run_spec with the batch's settings bound


class DaskExecutor:
    """Runs run-all entries as Dask tasks, as many at once as the workers have threads.

    Parameters
    ----------
    address
        A ``dask.distributed`` scheduler; None starts a local cluster for the batch.
    workers
        Worker processes of the local cluster (one report at a time each); None: one per
        CPU. Ignored with ``address``.

    Examples
    --------
    >>> from opslib.reports.distributed import DaskExecutor
    >>> from opslib.reports.runall import run_all
    >>> batch = run_all("reports.toml", executor=DaskExecutor(workers=4))  # doctest: +SKIP
    >>> batch.ok  # doctest: +SKIP
    True
    """

    def __init__(self, address: str | None = None, *, workers: int | None = None) -> None:
        if workers is not None and (isinstance(workers, bool) or workers < 1):
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        cpus = os.cpu_count() or 1
        if workers is not None and workers > _WORKERS_PER_CPU * cpus:  # 1000 processes: OOM
            raise ValueError(
                f"workers {workers}: this machine has {cpus} CPUs and each worker runs a "
                f"kernel of its own; give at most {_WORKERS_PER_CPU * cpus}"
            )
        self.address = address
        self.workers = workers

    def __repr__(self) -> str:
        where = self.address or f"a local cluster of {self.workers or 'one per CPU'} workers"
        return f"<DaskExecutor on {where}>"

    def _split_env(self, run: Run) -> tuple[Run, dict[str, str]]:
        """The task without secret environment entries, and those entries."""
        keywords = getattr(run, "keywords", {})
        connection = keywords.get("connection")
        env = dict(connection.env if connection is not None else {})
        secret = {k: v for k, v in env.items() if SECRET_NAME.search(k)}
        if not secret or connection is None:
            return run, {}
        if self.address:
            raise ValueError(
                f"the run environment holds {sorted(secret)}: a remote scheduler would "
                "carry them in its task graph; give the workers their own credentials "
                "(OPSLIB_* in their environment, or a config profile with --profile)"
            )
        public = {k: v for k, v in env.items() if k not in secret}
        return functools.partial(run, connection=replace(connection, env=public)), secret

    def __call__(
        self,
        run: Run,
        specs: Sequence[RunSpec],
        progress: Callable[[RunResult], Any] | None = None,
    ) -> list[RunResult]:
        """Run ``run(spec)`` for every entry on the workers; results in the file's order.

        A task that fails outright (a worker died, opslib is missing on it) is recorded as
        a failed run, like a failed report, and the others carry on.
        """
        from distributed import Client, as_completed

        task, secret_env = self._split_env(run)
        if self.address:
            client = Client(self.address)
        else:  # one report at a time per worker process: each runs a kernel of its own
            wanted = self.workers or os.cpu_count() or 1
            client = Client(
                n_workers=max(1, min(wanted, len(specs))),  # no worker without a report
                threads_per_worker=1,
                processes=True,
                env=secret_env,
                dashboard_address=None,
            )
        batch = uuid.uuid4().hex[:8]  # two batches on one scheduler never share a key
        results: dict[int, RunResult] = {}
        with client:
            futures = [
                client.submit(task, spec, key=f"opslib-report-{batch}-{i}-{_slug(spec)}")
                for i, spec in enumerate(specs)
            ]
            order = {future.key: i for i, future in enumerate(futures)}
            for future in as_completed(futures):
                i = order[future.key]
                try:
                    result = future.result()
                except Exception as exc:  # the task, not the report, failed: record it
                    result = _lost(specs[i], exc, getattr(run, "keywords", {}))
                results[i] = result
                if progress is not None:
                    progress(result)
        return [results[i] for i in range(len(specs))]


_WORKERS_PER_CPU = 4  # a report waits on its kernel and the platform: a few per CPU help


def _slug(spec: RunSpec) -> str:
    name = file_safe(report_name(spec.report)) or "report"
    return f"{name}-{spec.label}" if spec.label else name


def _lost(spec: RunSpec, error: Exception, keywords: dict[str, Any]) -> RunResult:
    """A failed run for an entry whose task never returned (its worker died, say)."""
    connection = keywords.get("connection")
    return record_unrun(
        Path(keywords.get("out_dir") or "reports"),
        spec.report,
        label=spec.label,
        parameters=spec.parameters,
        outcome="failed",
        reason=f"The Dask task failed: {type(error).__name__}: {error}.",
        cause=Cause.RUNTIME,
        error={"ename": type(error).__name__, "evalue": f"the Dask task failed: {error}"},
        platform=connection.platform.to_dict() if connection is not None else None,
    )
