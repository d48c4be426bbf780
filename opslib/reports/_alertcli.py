"""``opslib alerts check | test``: the alert rules of the run-all file and the profile.

``check`` reads the run-all file and every rule as a run would (before any kernel starts)
and prints each rule with its targets; a refused file, profile or rule is one line naming
it, exit status 2. ``test`` sends one
sample alert to each target the rules name (and the ``[notify]`` targets), so that a
person sees what an alert looks like where it lands; no report is run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opslib.reports.alerts import Rule
from opslib.reports.causes import Cause

__all__ = ["alerts_command"]


def _say(command: str, message: str) -> None:
    print(f"opslib alerts {command}: {message}", file=sys.stderr)


def _scope(rule: Rule) -> str:
    return f"{rule.report}/{rule.label}" if rule.label else f"{rule.report} (every run)"


def alerts_command(args: argparse.Namespace) -> int:
    """Dispatch ``opslib alerts check`` and ``opslib alerts test``."""
    from opslib.client import profile_table
    from opslib.reports.alerts import AlertConfigError, load_rules
    from opslib.reports.cli import default_config
    from opslib.reports.notify import NotifyConfigError, notify_settings
    from opslib.reports.runall import ConfigFileError, load_config

    command = str(args.alerts_command)
    config = Path(args.config) if args.config else default_config()
    if args.config and (config is None or not config.is_file()):
        _say(command, f"no run-all file {args.config}")
        return int(Cause.USAGE)
    try:
        if config is not None:
            load_config(config)  # a file run-all would refuse is refused here too
        settings = notify_settings(args.profile, urls=getattr(args, "notify", []) or [])
        rules = load_rules(args.profile, run_all_file=config)
    except (AlertConfigError, NotifyConfigError, ConfigFileError) as exc:
        _say(command, str(exc))
        return int(Cause.USAGE)
    if command == "check":
        where = f"{config}" if config else "no run-all file"
        name, _ = profile_table(args.profile)  # read above: it exists
        profile = f"profile {name}" if name else "no profile"
        rules_text = f"{len(rules)} alert rule" + ("" if len(rules) == 1 else "s")
        print(f"{rules_text} ok ({where}; {profile})")
        for rule in rules:
            targets = rule.notify or settings.urls
            told = f"{len(targets)} target" + ("" if len(targets) == 1 else "s")
            told = told if targets else "no target: index.html only"
            runs = f", for {rule.for_runs} runs" if rule.for_runs > 1 else ""
            print(f"  {_scope(rule)}: {rule.when}{runs} ({told})")
        return int(Cause.OK)
    return _test(rules, settings.urls, args.profile)


def _test(rules: list[Rule], urls: tuple[str, ...], profile: str | None) -> int:
    """One sample message to each target, of the first rule that tells it."""
    from opslib.reports._alerting import send_sample

    if not rules:
        _say("test", "no alert rule to send a sample of")
        return int(Cause.USAGE)
    sent: dict[str, Rule] = {}
    for rule in rules:
        for url in rule.notify or urls:
            sent.setdefault(url, rule)
    if not sent:
        _say("test", "no target: give a rule notify = [...] or [notify] urls, or --notify URL")
        return int(Cause.USAGE)
    failed = 0
    for url, rule in sent.items():
        counted = send_sample(rule, [url], profile=profile)
        for item in counted["undelivered"]:
            failed += 1
            _say("test", f"not delivered to {item['target']}: {item['error']}")
        if counted["delivered"]:
            print(f"sample of {_scope(rule)}: {rule.when} sent")
    return int(Cause.OK) if not failed else int(Cause.REPORT)
