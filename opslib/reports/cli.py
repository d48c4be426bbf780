"""``opslib report list | run | run-all | prune``, ``opslib products export`` and
``opslib demo``: the work behind the commands.

``opslib/cli.py`` declares the arguments; this module does the work.

Exit statuses are causes (:mod:`opslib.reports.causes`): 0 ok; 1 a report failed in its
own logic or data (or was partial); 2 nothing was run because the report, a parameter name
or value, the role it needs, the platform configuration or the run-all file was refused;
3 the platform could not be reached or refused the login; 4 a timeout or a dead kernel;
5 another run holds the lock. run-all exits with the most severe cause of its reports.
Every refusal is one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from opslib.reports._discovery import ReportNotFound, report_names
from opslib.reports._names import report_name
from opslib.reports.causes import Cause
from opslib.reports.checks import check_timeout
from opslib.reports.execute import DEFAULT_CELL_TIMEOUT, DEFAULT_RUN_TIMEOUT, run_report
from opslib.reports.locks import OutDirUnusable, RunLocked
from opslib.reports.notify import NotifyConfigError
from opslib.reports.params import ParameterError, inspect_report
from opslib.reports.platform import PlatformNotConfigured, PlatformUnavailable
from opslib.reports.status import RunResult

__all__ = ["default_config", "demo_command", "products_command", "report_command"]

EXIT_OK, EXIT_REFUSED = int(Cause.OK), int(Cause.USAGE)
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


def _echo(line: str) -> None:
    """A progress line, flushed at once (journalctl and cron logs show it as it happens)."""
    print(line, flush=True)


def _print_result(result: RunResult) -> None:
    if result.ok:
        print(result.summary(), flush=True)
    else:
        print(result.summary(), file=sys.stderr, flush=True)
    for alert in result.alerts:  # a rule that fired or cleared in this run
        if alert.get("event"):
            told = alert.get("notify") or {}
            print(
                f"{result.name}: alert {alert['event']}: {alert['title']}: {alert['detail']} "
                f"(told {told.get('delivered', 0)} of {told.get('targets', 0)} targets)",
                flush=True,
            )


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


def _run_name(args: argparse.Namespace) -> str:
    """``report`` or ``report/label``: the run as messages name it."""
    stem = report_name(str(args.name))
    return f"{stem}/{args.label}" if args.label else stem


def _given(value: float | None, default: float) -> float:
    """An option's value, or its default when it was not given (0 is a value, refused)."""
    return default if value is None else value


def _run(args: argparse.Namespace) -> int:
    from opslib.reports._alerting import Alerting
    from opslib.reports.alerts import AlertConfigError, load_rules

    command = "report run"
    names = [_run_name(args)]
    try:
        settings = _notify_settings(args)
    except NotifyConfigError as exc:
        _say(command, f"{exc}; nothing was run")
        return EXIT_REFUSED
    try:
        alerting = Alerting(tuple(load_rules(args.profile)), settings.urls)
    except AlertConfigError as exc:
        return _refused(command, exc, Cause.USAGE, settings, args, names)
    try:
        result = run_report(
            args.name,
            _split_parameters(args.parameter),
            out_dir=args.out,
            profile=args.profile,
            demo=args.demo,
            role=getattr(args, "as_role", "") or "",
            label=args.label,
            cell_timeout=check_timeout(
                "--cell-timeout", _given(args.cell_timeout, DEFAULT_CELL_TIMEOUT)
            ),
            run_timeout=check_timeout(
                "--run-timeout", _given(args.run_timeout, DEFAULT_RUN_TIMEOUT)
            ),
            self_contained=args.self_contained,
            echo=_echo,
            sections=args.verbose,
            alerts=alerting,
        )
    except (ReportNotFound, ParameterError, PlatformNotConfigured, OutDirUnusable) as exc:
        return _refused(command, exc, Cause.USAGE, settings, args, names)
    except PlatformUnavailable as exc:
        return _refused(command, exc, Cause.PLATFORM, settings, args, names)
    except RunLocked as exc:
        return _refused(command, exc, Cause.LOCKED, settings, args, names)
    from opslib.reports.index import write_index

    _print_result(result)
    print(f"status: {Path(result.run_dir) / 'status.json'}")
    index = write_index(args.out)
    print(f"index: {index}", flush=True)
    _tell(settings, command, [result], result.cause, index=str(index), profile=args.profile)
    return int(result.cause)


def _notify_settings(args: argparse.Namespace) -> Any:
    from opslib.reports.notify import notify_settings

    return notify_settings(args.profile, urls=args.notify, when=args.notify_when)


def _refused(
    command: str,
    exc: Exception,
    cause: Cause,
    settings: Any,
    args: argparse.Namespace,
    names: list[str],
) -> int:
    """A run refused before anything ran: one line, the notification (naming the reports
    it was to run), the cause."""
    _say(command, f"{exc}; nothing was run")
    _tell(settings, command, [], cause, stopped=str(exc), profile=args.profile, names=names)
    return int(cause)


def _tell(
    settings: Any,
    command: str,
    results: list[RunResult],
    cause: int,
    *,
    index: str = "",
    stopped: str = "",
    profile: str | None = None,
    config: Path | None = None,
    names: list[str] | None = None,
) -> None:
    """Notify when the settings want it; a target that fails is one line on stderr and is
    counted in status.json, never a change of the exit status. ``config``: the run-all
    file, named in the message."""
    if not settings.wants(results, cause):
        return
    from opslib.reports.notify import known_secrets, record_deliveries, run_name, send

    deliveries = send(
        settings, results, run=run_name(f"{command} {config}" if config else command),
        cause=cause, index=index, stopped=stopped,
        secrets=known_secrets(profile), names=names or (),
    )  # fmt: skip
    record_deliveries(results, deliveries)
    for delivery in deliveries:
        if not delivery.delivered:
            _say(command, f"notification not delivered to {delivery.target}: {delivery.error}")


def _executor(args: argparse.Namespace) -> Any:
    if not (getattr(args, "dask", None) or getattr(args, "workers", None) is not None):
        return None
    from opslib.reports.distributed import DaskExecutor

    return DaskExecutor(args.dask, workers=args.workers)


def _run_all(args: argparse.Namespace) -> int:
    from opslib.reports.runall import ConfigFileError, run_all

    command = "report run-all"
    try:
        settings = _notify_settings(args)
    except NotifyConfigError as exc:
        _say(command, f"{exc}; nothing was run")
        return EXIT_REFUSED
    config = Path(args.config) if args.config else default_config()
    if config is None or not config.is_file():
        missing = f"no run-all file ({args.config or CONFIG_NAME})"
        _say(command, missing)
        _tell(
            settings, command, [], Cause.USAGE, stopped=missing, profile=args.profile,
            names=[str(args.config or CONFIG_NAME)],
        )  # fmt: skip
        return EXIT_REFUSED
    names = _entry_names(config)
    try:
        batch = run_all(
            config,
            out_dir=args.out,
            profile=args.profile,
            demo=args.demo,
            progress=_print_result,
            executor=_executor(args),
            echo=_echo,
            sections=args.verbose,
            notify_urls=settings.urls,
        )
    except (ConfigFileError, PlatformNotConfigured, ValueError) as exc:
        return _refused(command, exc, Cause.USAGE, settings, args, names)
    except RunLocked as exc:
        return _refused(command, exc, Cause.LOCKED, settings, args, names)
    if batch.stopped:
        _say(command, f"stopped: {batch.stopped}")
    _print_batch(batch)
    _tell(
        settings, command, batch.results, batch.cause, index=str(batch.index),
        stopped=batch.stopped, profile=args.profile, config=config.resolve(),
    )  # fmt: skip
    return int(batch.cause)


def _entry_names(config: Path) -> list[str]:
    """The entries of a run-all file as messages name them (the file, when unreadable)."""
    from opslib.reports.runall import ConfigFileError, load_config

    try:
        _, specs = load_config(config)
    except ConfigFileError:
        return [str(config)]
    return [f"{s.report}/{s.label}" if s.label else s.report for s in specs]


def _diff(args: argparse.Namespace) -> int:
    """``opslib report diff RUN_A RUN_B``: the "Since the last run" block of two runs."""
    from opslib.reports.changes import (
        COUNTED,
        DIFF_MEMBERS,
        RunNotFound,
        changes_lines,
        compare,
        read_run,
        when_text,
    )

    try:
        before, after = read_run(args.run_a), read_run(args.run_b)
    except RunNotFound as exc:
        _say("report diff", str(exc))
        return EXIT_REFUSED
    for given, status in ((args.run_a, before), (args.run_b, after)):
        if str(status.get("outcome")) not in COUNTED:  # no figure, so "nothing moved" lies
            _say(
                "report diff",
                f"{given}: that run is {status.get('outcome')} and published no figures; "
                f"compare runs that are {' or '.join(COUNTED)}",
            )
            return EXIT_REFUSED
    names = {(s["report"], s.get("label") or "") for s in (before, after)}
    if len(names) > 1:
        print("note: the two runs are of different reports or entries", file=sys.stderr)
    before["run_dir"] = before.get("run_dir") or str(args.run_a)
    lines = changes_lines(
        compare(before, after), limit=None if args.all else DIFF_MEMBERS,
        heading=f"{_status_name(after)}, from the run of {when_text(before.get('started_at', ''))} "
        f"to the run of {when_text(after.get('started_at', ''))}",
    )  # fmt: skip
    print("\n".join(lines))
    return EXIT_OK


def _status_name(status: dict[str, Any]) -> str:
    label = status.get("label") or ""
    return f"{status['report']}/{label}" if label else str(status["report"])


def _print_batch(batch: Any) -> None:
    """Each run's outcome and cause, then the count, the exit status and the index."""
    for result in batch.results:
        cause = Cause(result.cause)
        print(f"  {result.name}: {result.outcome}, cause {int(cause)} {cause.label}")
    good = sum(r.ok for r in batch.results)
    cause = batch.cause
    print(
        f"{good} of {len(batch.results)} reports ok; exit {int(cause)} ({cause.label}); "
        f"index: {batch.index}",
        flush=True,
    )


def _prune(args: argparse.Namespace) -> int:
    from opslib.reports.index import prune

    out = Path(args.out)
    if not out.is_dir():
        _say("report prune", f"no reports directory {out}")
        return EXIT_REFUSED
    try:
        removed = prune(out, keep=args.keep, older_than_days=args.older_than, dry_run=args.dry_run)
    except ValueError as exc:
        _say("report prune", str(exc))
        return EXIT_REFUSED
    except OSError as exc:
        _say("report prune", f"cannot write {exc.filename or out}: {exc.strerror or exc}")
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
    if args.report_command == "diff":
        return _diff(args)
    raise AssertionError(args.report_command)


def products_command(args: argparse.Namespace) -> int:
    """``opslib products export PATH``: the platform's products as a desired-state CSV."""
    from opslib.reports.platform import connect_checked
    from opslib.reports.product_upkeep import export_products

    path = Path(args.path)
    if path.is_dir():
        _say("products export", f"{path} is a directory; give a file path such as products.csv")
        return EXIT_REFUSED
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
        return int(Cause.PLATFORM)
    with client:
        try:
            count = export_products(client, path)
        except OSError as exc:  # a directory that cannot be written (read-only, /proc)
            why = exc.strerror or exc
            _say("products export", f"cannot write {path}: {why}; nothing was written")
            return EXIT_REFUSED
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
        batch = run_all(path, out_dir=out, demo=True, progress=_print_result, echo=_echo)
    except (ConfigFileError, PlatformNotConfigured, OutDirUnusable) as exc:
        _say("demo", f"{exc}; nothing was run")
        return EXIT_REFUSED
    except RunLocked as exc:
        _say("demo", f"{exc}; nothing was run")
        return int(Cause.LOCKED)
    if batch.stopped:
        _say("demo", f"stopped: {batch.stopped}")
    _print_batch(batch)
    print(os.fspath(batch.index))
    return int(batch.cause)
