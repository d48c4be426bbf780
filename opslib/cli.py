"""The ``opslib`` command: platform server, data generator, simulator, reports.

Each sub-command's work lives in its own module; this file only parses arguments and
imports the module that does the work when the sub-command runs (so ``opslib --help``
stays fast and ``import opslib`` never pulls in the server).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

# The docstring's first line as a terminal shows it (no reStructuredText quotes).
_DESCRIPTION = __doc__.splitlines()[0].replace("``", "")


def _add_server(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("server", help="run the reference platform (ASGI + SQLite)")
    p.add_argument("--db", required=True, help="SQLite database file (created if missing)")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default: loopback)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--seed",
        choices=["demo", "small", "none"],
        default="none",
        help="seed an empty database with generated data first",
    )
    p.add_argument(
        "--rate-limit",
        type=float,
        default=None,
        help="per-token requests per second (0 turns the limit off)",
    )
    from opslib.dialects import Dialect

    p.add_argument(
        "--dialect",
        choices=Dialect.names(),
        default="opslib",
        help="how the platform decides what the spec leaves open (default: opslib's own)",
    )
    p.add_argument(
        "--docs",
        action="store_true",
        help="serve the OpenAPI document at /openapi.json and its pages at /docs (off by default)",
    )


def _add_probe(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "probe",
        help="learn a platform's dialect with reads only; print a profile section to paste",
    )
    p.add_argument("base_url", help="the platform, e.g. https://ops.example.com")
    p.add_argument("--client-id", help="default: OPSLIB_CLIENT_ID")
    p.add_argument("--client-secret", help="default: OPSLIB_CLIENT_SECRET")
    p.add_argument("--area-code", help="default: OPSLIB_AREA_CODE")
    p.add_argument("--phone", help="default: OPSLIB_PHONE (an ops account learns the most)")
    p.add_argument("--password", help="default: OPSLIB_PASSWORD (else asked for)")
    p.add_argument("--profile", default="platform", help="the profile the section is for")
    p.add_argument(
        "--base",
        default=None,
        help="the dialect to start from (default: opslib, then each built-in login selector)",
    )
    p.add_argument("--out", help="also write the section to this file")


def _add_seed(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("seed", help="fill a database with deterministic generated data")
    p.add_argument("--db", required=True)
    p.add_argument("--scale", choices=["small", "demo", "bench", "large", "year"], default="demo")
    p.add_argument("--seed-value", type=int, default=42, help="random seed (default 42)")
    p.add_argument(
        "--until",
        default=None,
        help="end of the generated time range, ISO 8601 UTC (default: now)",
    )


def _add_simulate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("simulate", help="make seeded devices report live events")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--base-url", help="the running platform")
    where.add_argument(
        "--demo", action="store_true", help="the embedded demo platform (what --demo reports read)"
    )
    p.add_argument("--devices", type=int, default=10)
    p.add_argument("--rate", type=float, default=5.0, help="events per second in total")
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument(
        "--dialect", default="opslib", help="the platform's built-in dialect (opslib, chint...)"
    )
    p.add_argument(
        "--fail-product",
        default="",
        metavar="PRODUCT_ID",
        help="every device of this product fails first: a fault alarm, offline, then silent",
    )


def _add_demo(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo", help="run every report on the embedded platform; print the path of index.html"
    )
    p.add_argument("--out", default="reports", help="where reports go (default: reports)")
    p.add_argument("--config", default=None, help="run-all file (default: reports.toml)")


def _add_report(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    report = sub.add_parser("report", help="list, run and schedule the notebook reports")
    rsub = report.add_subparsers(dest="report_command", required=True)
    rsub.add_parser("list", help="each report with its parameters, types, defaults and help")
    run = rsub.add_parser("run", help="run one report unattended: notebook, HTML, status.json")
    run.add_argument("name", help="a report name (see `opslib report list`) or a notebook path")
    run.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="NAME VALUE",
        help="a parameter value as NAME VALUE or NAME=VALUE (repeatable); a value may "
        "start with '-' (-p start -1d)",
    )
    run.add_argument("--out", default="reports", help="where run directories go (default: reports)")
    _add_platform(run)
    run.add_argument(
        "--as",
        dest="as_role",
        choices=["ops", "admin"],
        default="",
        help="with --demo: the demo account to run as (default ops; product_upkeep's apply "
        "needs admin)",
    )
    run.add_argument("--label", default="", help="a suffix for the run directory's name")
    _add_verbose(run)
    _add_notify(run)
    run.add_argument(
        "--cell-timeout", type=float, default=None, help="seconds one cell may take (default 600)"
    )
    run.add_argument(
        "--run-timeout", type=float, default=None, help="seconds the report may take (default 1800)"
    )
    run.add_argument(
        "--self-contained",
        action="store_true",
        help="plotly.js inside the HTML (one file of about 5 MB) instead of shared beside it",
    )
    run_all = rsub.add_parser("run-all", help="run the reports of a TOML file; write index.html")
    run_all.add_argument(
        "--config", default=None, help="run-all file (default: ./reports.toml, else the repo's)"
    )
    run_all.add_argument("--out", default=None, help="overrides the file's `out`")
    _add_platform(run_all)
    _add_verbose(run_all)
    _add_notify(run_all)
    parallel = run_all.add_mutually_exclusive_group()
    parallel.add_argument(
        "--dask",
        default=None,
        metavar="SCHEDULER_ADDRESS",
        help="run the reports in parallel on the workers of this Dask scheduler",
    )
    parallel.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="run the reports in parallel on a local Dask cluster of N processes",
    )
    diff = rsub.add_parser(
        "diff", help="what changed between two runs: figures that moved, sets' members"
    )
    diff.add_argument("run_a", help="the earlier run: its directory or its status.json")
    diff.add_argument("run_b", help="the later run")
    diff.add_argument(
        "--all", action="store_true", help="every member id (default: the first 20 of a set)"
    )
    prune = rsub.add_parser("prune", help="remove old runs (never a report's latest); index.html")
    prune.add_argument("--out", default="reports", help="the reports directory (default: reports)")
    which = prune.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--keep", type=int, metavar="N", help="keep the newest N runs of each report"
    )
    which.add_argument(
        "--older-than", type=float, metavar="DAYS", help="remove runs started over DAYS days ago"
    )
    prune.add_argument("--dry-run", action="store_true", help="list what would go; remove nothing")


def _add_alerts(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    alerts = sub.add_parser("alerts", help="the alert rules of reports.toml and the profile")
    asub = alerts.add_subparsers(dest="alerts_command", required=True)
    check = asub.add_parser("check", help="check every rule (exit 2 naming a refused one)")
    test = asub.add_parser("test", help="send one sample alert to each target of the rules")
    for p in (check, test):
        p.add_argument(
            "--config", default=None, help="run-all file (default: ./reports.toml, else the repo's)"
        )
        p.add_argument("--profile", default=None, help="the profile whose alerts to read too")
    test.add_argument("--notify", action="append", default=[], metavar="URL", help="send here too")


def _add_verbose(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also a line as each section (notebook heading) of a report ends, with its time",
    )


def _add_notify(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--notify",
        action="append",
        default=[],
        metavar="URL",
        help="also tell this Apprise URL how the run went (repeatable; added to the "
        "config file's [notify] urls)",
    )
    p.add_argument(
        "--notify-when",
        choices=["failure", "partial", "always"],
        default=None,
        help="when to tell (default: the config file's, else failure)",
    )


def _add_platform(p: argparse.ArgumentParser) -> None:
    """--profile or --demo: the platform, said explicitly (nothing configured is refused)."""
    which = p.add_mutually_exclusive_group()
    which.add_argument("--profile", default=None, help="connection profile of the config file")
    which.add_argument(
        "--demo", action="store_true", help="the embedded demo platform (marked DEMO DATA)"
    )


def _add_products(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    products = sub.add_parser("products", help="the platform's products (the product list)")
    psub = products.add_subparsers(dest="products_command", required=True)
    export = psub.add_parser(
        "export", help="write the current products as a desired-state CSV for product_upkeep"
    )
    export.add_argument("path", help="the CSV file to write")
    export.add_argument("--force", action="store_true", help="overwrite PATH if it exists")
    _add_platform(export)


def _add_cache(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cache = sub.add_parser("cache", help="the local cache of event windows (events.list cache=)")
    csub = cache.add_subparsers(dest="cache_command", required=True)
    csub.add_parser("info", help="where it is, its size, windows and platforms")
    clear = csub.add_parser("clear", help="remove cached windows")
    clear.add_argument(
        "--older-than",
        type=float,
        default=None,
        metavar="DAYS",
        help="only windows cached more than DAYS days ago (default: all)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="opslib", description=_DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    _add_server(sub)
    _add_seed(sub)
    _add_probe(sub)
    _add_simulate(sub)
    _add_demo(sub)
    _add_report(sub)
    _add_alerts(sub)
    _add_products(sub)
    _add_cache(sub)
    from opslib.store._cli import add_commands

    add_commands(sub)
    return parser


def join_parameters(argv: Sequence[str]) -> list[str]:
    """``-p NAME VALUE`` and ``-p NAME=VALUE`` as one ``--parameter=NAME=VALUE`` token each.

    argparse takes a value that starts with '-' (``-p start -1d``) for an option; joined,
    the value is taken as written. A token starting with ``--`` after NAME is the next
    option, not a value (``-p NAME=--x`` gives such a value).

    Examples
    --------
    >>> join_parameters(["report", "run", "x", "-p", "start", "-1d", "-p", "end=now"])
    ['report', 'run', 'x', '--parameter=start=-1d', '--parameter=end=now']
    """
    out: list[str] = []
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token not in ("-p", "--parameter") or i + 1 >= len(tokens):
            out.append(token)
            i += 1
            continue
        name = tokens[i + 1]
        if "=" in name or i + 2 >= len(tokens) or tokens[i + 2].startswith("--"):
            out.append(f"--parameter={name}")
            i += 2
        else:
            out.append(f"--parameter={name}={tokens[i + 2]}")
            i += 3
    return out


def join_values(argv: Sequence[str], options: Sequence[str] = ("--since",)) -> list[str]:
    """``--since -365d`` as ``--since=-365d``: argparse takes a value starting with '-'
    for an option.

    >>> join_values(["sync", "--since", "-365d"])
    ['sync', '--since=-365d']
    """
    out: list[str] = []
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        if tokens[i] in options and i + 1 < len(tokens):
            out.append(f"{tokens[i]}={tokens[i + 1]}")
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    tokens = join_values(join_parameters(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(tokens)
    if args.command == "server":
        from opslib.server.runner import serve

        return serve(
            args.db,
            host=args.host,
            port=args.port,
            seed=args.seed,
            rate_limit=args.rate_limit,
            dialect=args.dialect,
            docs=args.docs,
        )
    if args.command == "probe":
        from opslib.probing import probe_command

        return probe_command(args)
    if args.command == "seed":
        from opslib.server.seed import seed_command

        return seed_command(args.db, scale=args.scale, seed_value=args.seed_value, until=args.until)
    if args.command == "simulate":
        from opslib.server.simulate import simulate_command

        return simulate_command(
            args.base_url,
            devices=args.devices,
            rate=args.rate,
            seconds=args.seconds,
            dialect=args.dialect,
            fail_product=args.fail_product,
            demo=args.demo,
        )
    if args.command == "demo":
        from opslib.reports.cli import demo_command

        return demo_command(out=args.out, config=args.config)
    if args.command == "report":
        from opslib.reports.cli import report_command

        return report_command(args)
    if args.command == "alerts":
        from opslib.reports._alertcli import alerts_command

        return alerts_command(args)
    if args.command == "products":
        from opslib.reports.cli import products_command

        return products_command(args)
    if args.command == "cache":
        from opslib.client import cache_command

        return cache_command(args.cache_command, older_than=getattr(args, "older_than", None))
    if args.command in ("sync", "store", "sql"):
        from opslib.store import _cli

        command = {"sync": _cli.sync_command, "store": _cli.store_command, "sql": _cli.sql_command}
        return command[args.command](args)
    raise AssertionError(args.command)  # argparse refuses unknown commands


if __name__ == "__main__":
    sys.exit(main())
