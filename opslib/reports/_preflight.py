"""The platform check of a run, in a process with the kernels' environment (``python -m``).

Prints one JSON line: ``{"ok": true, "platform": {...}}``, or ``{"ok": false, "kind":
"config" | "unavailable" | "parameter", "message": "..."}``. ``--demo`` checks the embedded
demo platform (``--as admin``: as its admin account); each ``--check NAME=KIND=VALUE`` is an
id a parameter names (a product, a device, a user), looked up once logged in
(:mod:`opslib.reports._filters`). The runner
(:func:`opslib.reports.platform.open_connection`) starts it once per run or run-all, so the
kernels find what it found: the same environment, profile and config file.
"""

from __future__ import annotations

import argparse
import json
import sys

from opslib.reports.platform import PlatformNotConfigured, PlatformUnavailable, connect_checked


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="opslib.reports._preflight")
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--as", dest="role", default="")
    parser.add_argument("--check", action="append", default=[])
    args = parser.parse_args(argv[1:])
    try:
        client, platform = connect_checked(demo=args.demo, role=args.role)
    except PlatformNotConfigured as exc:
        answer = {"ok": False, "kind": "config", "message": str(exc)}
    except PlatformUnavailable as exc:
        answer = {"ok": False, "kind": "unavailable", "message": str(exc)}
    else:
        answer = {"ok": True, "platform": platform.to_dict()}
        if args.check:
            from opslib.reports._filters import check_filters

            with client:
                name, refusal = check_filters(client, args.check)
            if refusal:
                answer = {"ok": False, "kind": "parameter", "name": name, "message": refusal}
        else:
            client.close()
    print(json.dumps(answer), flush=True)
    return 0 if answer["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
