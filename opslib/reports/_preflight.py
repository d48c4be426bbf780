"""The platform check of a run, in a process with the kernels' environment (``python -m``).

Prints one JSON line: ``{"ok": true, "platform": {...}}``, or ``{"ok": false, "kind":
"config" | "unavailable", "message": "..."}``. ``--demo`` checks the embedded demo platform.
The runner (:func:`opslib.reports.platform.open_connection`) starts it once per run or
run-all, so the kernels find what it found: the same environment, profile and config file.
"""

from __future__ import annotations

import json
import sys

from opslib.reports.platform import PlatformNotConfigured, PlatformUnavailable, connect_checked


def main(argv: list[str]) -> int:
    try:
        client, platform = connect_checked(demo="--demo" in argv[1:])
    except PlatformNotConfigured as exc:
        answer = {"ok": False, "kind": "config", "message": str(exc)}
    except PlatformUnavailable as exc:
        answer = {"ok": False, "kind": "unavailable", "message": str(exc)}
    else:
        client.close()
        answer = {"ok": True, "platform": platform.to_dict()}
    print(json.dumps(answer), flush=True)
    return 0 if answer["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
