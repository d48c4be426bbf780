"""``opslib report list | run | run-all | prune``, ``opslib products export`` and
``opslib demo``: the work behind the commands.

``opslib/cli.py`` declares the arguments; this module does the work.

Exit statuses: 0 success; 1 a report ran and failed, was partial or timed out, or the
platform could not be reached or refused the login; 2 nothing was run because the report,
a parameter name or value, the role it needs, the platform configuration or the run-all
file was refused. Every refusal is one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from opslib.reports._discovery import ReportNotFound, report_names
from opslib.reports.execute import DEFAULT_CELL_TIMEOUT, DEFAULT_RUN_TIMEOUT, run_report
from opslib.reports.params import ParameterError, inspect_report
from opslib.reports.platform import PlatformNotConfigured, PlatformUnavailable
from opslib.reports.status import RunResult

__all__ = ["default_config", "demo_command", "products_command", "report_command"]

EXIT_OK, EXIT_FAILED, EXIT_REFUSED = 0, 1, 2
CONFIG_NAME = "reports.toml"


def default_config() -> Path | None:
    """``./reports.toml`` if present, else the one at the root of the source checkout."""
    here = Path.cwd() / CONFIG_NAME
    if here.is_file():
        return here
    repo = Path(__file__).resolve().parents[2] / CONFIG_NAME
    return repo if repo.is_file() else None


def _say(command: str, message: str) -> None:
    print(f"opslib {command}: {message}", file=sys.stderr)


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
        print(result.summary(), flush=True)
    else:
        print(result.summary(), file=sys.stderr, flush=True)


def _split_parameters(pairs: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` items (``opslib.cli`` joins ``-p NAME VALUE`` into one) → a dict."""
    given: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ParameterError(
                f"-p {pair!r}: give -p NAME VALUE or -p NAME=VALUE (e.g. -p start -1d)"
            )
        given[name.strip()] = value
    return given


def _run(args: argparse.Namespace) -> int:
    try:
        result = run_report(
            args.name,
            _split_parameters(args.parameter),
            out_dir=args.out,
            profile=args.profile,
            demo=args.demo,
            label=args.label,
            cell_timeout=args.cell_timeout or DEFAULT_CELL_TIMEOUT,
            run_timeout=args.run_timeout or DEFAULT_RUN_TIMEOUT,
            self_contained=args.self_contained,
        )
    except (ReportNotFound, ParameterError, PlatformNotConfigured) as exc:
        _say("report run", f"{exc}; nothing was run")
        return EXIT_REFUSED
    except PlatformUnavailable as exc:
        _say("report run", f"{exc}; nothing was run")
        return EXIT_FAILED
    from opslib.reports.index import write_index

    _print_result(result)
    print(f"status: {Path(result.run_dir) / 'status.json'}")
    print(f"index: {write_index(args.out)}")
    return EXIT_OK if result.ok else EXIT_FAILED


def _executor(args: argparse.Namespace) -> Any:
    if not (getattr(args, "dask", None) or getattr(args, "workers", None) is not None):
        return None
    from opslib.reports.distributed import DaskExecutor

    return DaskExecutor(args.dask, workers=args.workers)


def _run_all(args: argparse.Namespace) -> int:
    from opslib.reports.runall import ConfigFileError, run_all

    config = Path(args.config) if args.config else default_config()
    if config is None or not config.is_file():
        _say("report run-all", f"no run-all file ({args.config or CONFIG_NAME})")
        return EXIT_REFUSED
    try:
        batch = run_all(
            config,
            out_dir=args.out,
            profile=args.profile,
            demo=args.demo,
            progress=_print_result,
            executor=_executor(args),
        )
    except (ConfigFileError, PlatformNotConfigured, ValueError) as exc:
        _say("report run-all", f"{exc}; nothing was run")
        return EXIT_REFUSED
    if batch.stopped:
        _say("report run-all", f"stopped: {batch.stopped}")
    done = len(batch.results)
    good = sum(r.ok for r in batch.results)
    print(f"{good} of {done} reports ok; index: {batch.index}")
    return EXIT_OK if batch.ok else EXIT_FAILED


def _prune(args: argparse.Namespace) -> int:
    from opslib.reports.index import prune

    out = Path(args.out)
    if not out.is_dir():
        _say("report prune", f"no reports directory {out}")
        return EXIT_REFUSED
    try:
        removed = prune(
            out, keep=args.keep, older_than_days=args.older_than, dry_run=args.dry_run
        )
    except ValueError as exc:
        _say("report prune", str(exc))
        return EXIT_REFUSED
    verb = "would remove" if args.dry_run else "removed"
    for path in removed:
        print(f"{verb} {path}")
    print(f"{verb} {len(removed)} runs; index: {out / 'index.html'}")
    return EXIT_OK


def report_command(args: argparse.Namespace) -> int:
    """Dispatch ``opslib report <sub-command>``."""
    if args.report_command == "list":
        return _list()
    if args.report_command == "run":
        return _run(args)
    if args.report_command == "run-all":
        return _run_all(args)
    if args.report_command == "prune":
        return _prune(args)
    raise AssertionError(args.report_command)


def products_command(args: argparse.Namespace) -> int:
    """``opslib products export PATH``: the platform's products as a desired-state CSV."""
    from opslib.reports.platform import connect_checked
    from opslib.reports.product_upkeep import export_products

    path = Path(args.path)
    if path.exists() and not args.force:
        _say("products export", f"{path} exists; pass --force to overwrite it")
        return EXIT_REFUSED
    if not path.resolve().parent.is_dir():
        _say("products export", f"the directory {path.resolve().parent} does not exist")
        return EXIT_REFUSED
    try:
        client, platform = connect_checked(profile=args.profile, demo=args.demo)
    except PlatformNotConfigured as exc:
        _say("products export", f"{exc}; nothing was written")
        return EXIT_REFUSED
    except PlatformUnavailable as exc:
        _say("products export", f"{exc}; nothing was written")
        return EXIT_FAILED
    with client:
        count = export_products(client, path)
    print(f"{count} products of {platform.name} written to {path}")
    return EXIT_OK


def demo_command(out: str = "reports", config: str | None = None) -> int:
    """Run every report of the run-all file on the embedded demo platform (``--demo``).

    The platform (the demo database, seeded on first use; ``OPSLIB_EMBEDDED_DB`` and
    ``OPSLIB_EMBEDDED_SCALE`` override it) is started by each process that needs it, and
    every report is marked DEMO DATA. Prints the path of index.html.
    """
    from opslib.reports.runall import ConfigFileError, run_all

    path = Path(config) if config else default_config()
    if path is None:
        _say("demo", f"no {CONFIG_NAME} found")
        return EXIT_REFUSED
    print("checking the embedded demo platform (the first start seeds the demo data)...")
    try:
        batch = run_all(path, out_dir=out, demo=True, progress=_print_result)
    except (ConfigFileError, PlatformNotConfigured) as exc:
        _say("demo", str(exc))
        return EXIT_REFUSED
    if batch.stopped:
        _say("demo", f"stopped: {batch.stopped}")
    failed = sum(not r.ok for r in batch.results)
    print(f"{len(batch.results) - failed} of {len(batch.results)} reports ok")
    print(os.fspath(batch.index))
    return EXIT_OK if not failed else EXIT_FAILED
