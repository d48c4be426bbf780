"""The README's "Alerts" example on the demo platform: fleet_inventory runs, the simulator makes
one product's devices fail, fleet_inventory runs again; the report, index.html and
``opslib report diff`` list the devices that went offline, and the alert fires once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from opslib.cli import main
from opslib.reports.changes import DIFF_MEMBERS, SHOWN_MEMBERS, member_text
from opslib.reports.runall import run_all
from opslib.server.simulate import simulate_command

from .test_notify import hook

__all__ = ["hook"]  # the fixture used here

PRODUCT = "p-light-02"  # LED Light Strip: most of its devices are online in the seed


@pytest.fixture
def demo_db(seeded_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A demo platform of this test's own: the embedded database, a copy of the seed."""
    db = tmp_path / "embedded" / "demo.db"
    db.parent.mkdir()
    source, copy = sqlite3.connect(seeded_db), sqlite3.connect(db)
    try:
        source.backup(copy)  # consistent, WAL included
    finally:
        source.close()
        copy.close()
    db.with_name("demo.db.seeded").write_text("scale=small\n")
    monkeypatch.setenv("OPSLIB_EMBEDDED_DB", str(db))
    return db


def test_the_changes_list_the_devices_a_failed_product_took_offline_and_the_alert_fires(
    demo_db: Path,
    tmp_path: Path,
    hook: tuple[int, list[dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    port, posts = hook
    config = tmp_path / "reports.toml"
    config.write_text(
        'out = "reports"\n\n[[run]]\nreport = "fleet_inventory"\nlabel = "hourly"\n\n'
        '[[alerts]]\nreport = "fleet_inventory"\nwhen = "new in fleet.offline_devices"\n'
    )
    target = (f"json://127.0.0.1:{port}/alerts",)
    first = run_all(config, demo=True, notify_urls=target).results[0]
    assert first.ok, first.reason
    assert first.changes is None
    offline_before = set(first.sets["fleet.offline_devices"]["members"])

    assert simulate_command(None, demo=True, devices=1, rate=1, seconds=0.1,
                            fail_product=PRODUCT) == 0  # fmt: skip
    capsys.readouterr()

    second = run_all(config, demo=True, notify_urls=target).results[0]
    assert second.ok, second.reason
    assert second.changes is not None
    (offline,) = [s for s in second.changes["sets"] if s["name"] == "fleet.offline_devices"]
    failed = set(offline["added"])
    assert failed, "no device went offline"
    assert not failed & offline_before
    assert failed <= set(second.sets["fleet.offline_devices"]["members"])
    share = next(m for m in second.changes["metrics"] if m["name"] == "fleet.offline_share")
    assert share["now"] > share["before"]

    page = Path(second.html).read_text()
    assert set(offline["names"]) == failed  # each by its name and id, as the report shows it
    shown = [member_text(device, offline["names"]) for device in sorted(failed)]

    def said(limit: int) -> str:
        more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
        return f"{len(failed)} devices went offline: " + ", ".join(shown[:limit]) + more

    line = said(SHOWN_MEMBERS)
    assert "Since the last run" in page
    assert line in page
    assert line in (Path(second.run_dir).parent.parent / "index.html").read_text()

    assert main(["report", "diff", first.run_dir, second.run_dir]) == 0
    assert f"  {said(DIFF_MEMBERS)} (fleet.offline_devices)" in capsys.readouterr().out.splitlines()

    (post,) = posts  # the first run had nothing to compare with: one message, the second's
    message = json.loads(post["body"])
    assert message["title"] == (
        f"fleet_inventory/hourly alert: new in fleet.offline_devices: "
        f"now {len(second.sets['fleet.offline_devices']['members'])} devices, "
        f"before {len(offline_before)} devices"
    )
    assert f"{len(failed)} new in fleet.offline_devices: " in message["message"]
    status = json.loads((Path(second.run_dir) / "status.json").read_text())
    assert status["alerts"][0]["event"] == "fired"
