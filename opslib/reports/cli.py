"""``opslib report list | run | run-all`` and ``opslib demo``: the work behind the commands.

``opslib/cli.py`` declares the arguments; this module does the work.

Exit statuses: 0 success; 1 a report ran and failed (or timed out); 2 nothing was run
because the report, a parameter name, a parameter value or the run-all file was refused.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from opslib.reports._discovery import ReportNotFound, report_names
from opslib.reports.execute import DEFAULT_CELL_TIMEOUT, DEFAULT_RUN_TIMEOUT, RunResult, run_report
from opslib.reports.params import ParameterError, inspect_report

__all__ = ["default_config", "demo_command", "report_command"]

EXIT_OK, EXIT_FAILED, EXIT_REFUSED = 0, 1, 2
CONFIG_NAME = "reports.toml"


def default_config() -> Path | None:
    """``./reports.toml`` if present, else the one at the root of the source checkout."""
    here = Path.cwd() / CONFIG_NAME
    if here.is_file():
        return here
    repo = Path(__file__).resolve().parents[2] / CONFIG_NAME
    return repo if repo.is_file() else None


def _list() -> int:
    names = report_names()
    if not names:
        print("no report notebooks found", file=sys.stderr)
        return EXIT_REFUSED
    for name, path in names.items():
        print(f"{name}  ({path})")
        for param in inspect_report(path).values():
            default = repr(param.default)
            line = f"    {param.name}: {param.type} = {default}"
            print(f"{line:<52} {param.help}".rstrip())
        print()
    return EXIT_OK


def _print_result(result: RunResult) -> None:
    if result.ok:
        print(
            f"{result.report}{'/' + result.label if result.label else ''}: ok "
            f"({result.duration_s:.1f} s) {result.html}"
        )
    else:
        print(result.summary(), file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    given: dict[str, Any] = {}
    for key, value in args.parameter:
        given[key] = value
    try:
        result = run_report(
            args.name,
            given,
            out_dir=args.out,
            profile=args.profile,
            label=args.label,
            cell_timeout=args.cell_timeout or DEFAULT_CELL_TIMEOUT,
            run_timeout=args.run_timeout or DEFAULT_RUN_TIMEOUT,
        )
    except (ReportNotFound, ParameterError) as exc:
        print(f"opslib report run: {exc}; nothing was run", file=sys.stderr)
        return EXIT_REFUSED
    _print_result(result)
    print(f"status: {Path(result.run_dir) / 'status.json'}")
    return EXIT_OK if result.ok else EXIT_FAILED


def _run_all(args: argparse.Namespace) -> int:
    from opslib.reports.runall import ConfigFileError, run_all

    config = Path(args.config) if args.config else default_config()
    if config is None or not config.is_file():
        print(
            f"opslib report run-all: no run-all file ({args.config or CONFIG_NAME})",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    executor = None
    if getattr(args, "dask", None) or getattr(args, "workers", None) is not None:
        from opslib.reports.distributed import DaskExecutor

        try:
            executor = DaskExecutor(args.dask, workers=args.workers)
        except ValueError as exc:
            print(f"opslib report run-all: {exc}; nothing was run", file=sys.stderr)
            return EXIT_REFUSED
    try:
        batch = run_all(
            config,
            out_dir=args.out,
            profile=args.profile,
            progress=_print_result,
            executor=executor,
        )
    except ConfigFileError as exc:
        print(f"opslib report run-all: {exc}; nothing was run", file=sys.stderr)
        return EXIT_REFUSED
    failed = [r for r in batch.results if not r.ok]
    done = len(batch.results)
    print(f"{done - len(failed)} of {done} reports ok; index: {batch.index}")
    return EXIT_OK if not failed else EXIT_FAILED


def report_command(args: argparse.Namespace) -> int:
    """Dispatch ``opslib report <sub-command>``."""
    if args.report_command == "list":
        return _list()
    if args.report_command == "run":
        return _run(args)
    if args.report_command == "run-all":
        return _run_all(args)
    raise AssertionError(args.report_command)


def demo_command(out: str = "reports", config: str | None = None) -> int:
    """Run every report of the run-all file against the embedded platform.

    The platform (the demo database, seeded on first use; ``OPSLIB_EMBEDDED_DB`` and
    ``OPSLIB_EMBEDDED_SCALE`` override it) runs in this process and every report connects
    to it as the demo ops account. Prints the path of index.html.
    """
    from opslib.client import embedded_platform
    from opslib.reports.runall import ConfigFileError, run_all
    from opslib.server import demo

    path = Path(config) if config else default_config()
    if path is None:
        print(f"opslib demo: no {CONFIG_NAME} found", file=sys.stderr)
        return EXIT_REFUSED
    print("starting the embedded platform (the first start seeds the demo data)...", flush=True)
    platform = embedded_platform()
    env = {
        "OPSLIB_BASE_URL": platform.base_url,
        "OPSLIB_CLIENT_ID": demo.CLIENT_ID,
        "OPSLIB_CLIENT_SECRET": demo.CLIENT_SECRET,
        "OPSLIB_AREA_CODE": demo.AREA_CODE,
        "OPSLIB_PHONE": demo.OPS_PHONE,
        "OPSLIB_PASSWORD": demo.OPS_PASSWORD,
    }
    print(f"platform at {platform.base_url} over {platform.db_path}; running the reports...")
    try:
        batch = run_all(path, out_dir=out, env=env, progress=_print_result)
    except ConfigFileError as exc:
        print(f"opslib demo: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    finally:
        platform.stop()
    failed = sum(not r.ok for r in batch.results)
    print(f"{len(batch.results) - failed} of {len(batch.results)} reports ok")
    print(os.fspath(batch.index))
    return EXIT_OK if not failed else EXIT_FAILED
