"""Report runs beyond the four of tests/reports/runs.py, one per parameter set a test reads
as a person would: a one-day window, a window without data, a zone whose clocks change
inside the window (on a platform seeded for it, with an event type filter), and
product_upkeep's dry run of a file with problems and an apply that skips a change.

Each run is made once per session (per output directory) and shared by tests/reports and
tests/browser; they run a few at a time, like the others.
"""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from opslib.reports import RunResult, run_report

from .runs import CELL_TIMEOUT, RUN_TIMEOUT, platform_env

PARALLEL_RUNS = 2  # the runs' kernels beside the other workers' tests, on 2 cores

# The clocks go back in New York on 2026-11-01 at 06:00 UTC: Nov 1 is a 25-hour day.
DST_ZONE = "America/New_York"
DST_SEED_UNTIL = dt.datetime(2026, 11, 3, 12, tzinfo=dt.UTC)  # three days of events before
DST_WINDOW = {"start": "2026-10-31", "end": "2026-11-03", "tz": DST_ZONE, "freq": "1D"}
EMPTY_WINDOW = {"start": "2020-01-01", "end": "2020-01-02"}
ONE_DAY = {"start": "-1d"}
FILTERED = ["alarm", "property report"]  # leaves out online and offline: no downtime
NEW_PRODUCT = "p-test-new"
RENAMED = "p-light-03"  # no device uses it in the small seed

_cache: dict[Path, dict[str, RunResult]] = {}


def _run(report: str, params: dict[str, Any], out: Path, env: dict[str, str], label: str) -> Any:
    def go() -> RunResult:
        return run_report(
            report, params, out_dir=out, env=env, label=label,
            cell_timeout=CELL_TIMEOUT, run_timeout=RUN_TIMEOUT,
        )  # fmt: skip

    return go


def upkeep_files(admin: Any, folder: Path) -> tuple[Path, Path]:
    """Two desired-state files from the platform's products: one with a rename, a new
    product and two problems; one with the rename and the new product only."""
    products = admin.products.list()
    fields = [
        "product_id", "product_name", "category_id", "net_type", "node_type", "encrypt_type",
        "status", "popular", "vendor_type", "product_icon", "product_secret",
    ]  # fmt: skip
    rows = [{f: ("" if r.get(f) is None else r.get(f)) for f in fields} for r in products.to_dict(
        "records")]  # fmt: skip
    for row in rows:
        row["product_secret"] = ""
        if row["product_id"] == RENAMED:
            row.update(product_name="Zigbee Bulb E27 Pro", product_secret="renamed-secret-1")
    rows.append(
        {**rows[0], "product_id": NEW_PRODUCT, "product_name": "Brand new",
         "product_secret": "new-secret-123"}
    )  # fmt: skip
    clean = folder / "clean.csv"
    bad = folder / "bad.csv"
    for path, broken in ((clean, False), (bad, True)):
        copy = [dict(r) for r in rows]
        if broken:
            copy[0]["net_type"] = "carrier pigeon"
            copy[1]["category_id"] = 99
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            writer.writerows(copy)
    return clean, bad


def more_runs(
    platform: Any, make_platform: Callable[[str, dict[str, Any]], Any], out: Path
) -> dict[str, RunResult]:
    """The runs, by name: ``one_day``, ``empty``, ``dst``, ``upkeep_problems``,
    ``upkeep_apply``. ``make_platform(name, seed)`` starts a platform of its own over a
    database seeded with ``seed`` (keywords of ``seed_database``)."""
    if out in _cache:
        return _cache[out]
    env = platform_env(platform)
    dst = make_platform("dst", {"scale": "small", "until": DST_SEED_UNTIL})
    own = make_platform("upkeep", {"scale": "small"})
    clean, bad = upkeep_files(own.connect("admin"), out.parent)
    admin = platform_env(own, "admin")
    jobs = {
        "one_day": _run("event_analysis", ONE_DAY, out, env, "one-day"),
        "empty": _run("event_analysis", EMPTY_WINDOW, out, env, "empty"),
        "dst": _run(
            "event_analysis",
            {**DST_WINDOW, "event_types": FILTERED},
            out,
            platform_env(dst),
            "dst",
        ),
        "upkeep_problems": _run(
            "product_upkeep", {"products_path": str(bad)}, out, admin, "problems"
        ),
    }
    with ThreadPoolExecutor(PARALLEL_RUNS) as pool:
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        results = {name: future.result() for name, future in futures.items()}
    # the apply changes the platform the dry run read: after it
    results["upkeep_apply"] = _run(
        "product_upkeep", {"products_path": str(clean), "apply": True}, out, admin, "apply"
    )()
    _cache[out] = results
    return results


class OwnPlatform:
    """A platform started for these runs over a database seeded as asked (the demo
    credentials of the seed); what :func:`~tests.reports.runs.platform_env` needs."""

    def __init__(self, db: Path, seed: dict[str, Any]) -> None:
        from opslib.server.runner import start_in_thread
        from opslib.server.seed import seed_database

        seed_database(db, **seed)
        base_url, self.stop = start_in_thread(db)
        self.base_url = base_url.rstrip("/")
        self.db = db

    def credentials(self, role: str = "ops") -> dict[str, str]:
        from opslib.server import demo

        phone, password = {
            "ops": (demo.OPS_PHONE, demo.OPS_PASSWORD),
            "admin": (demo.ADMIN_PHONE, demo.ADMIN_PASSWORD),
        }[role]
        return {
            "client_id": demo.CLIENT_ID, "client_secret": demo.CLIENT_SECRET,
            "area_code": demo.AREA_CODE, "phone": phone, "password": password,
        }  # fmt: skip

    def connect(self, role: str = "ops") -> Any:
        import opslib

        return opslib.connect(self.base_url, **self.credentials(role))
