"""On the demo platform an admin applies product_upkeep from the command line: ``--demo
--as admin`` (``--demo`` alone is the ops account, and the refusal says what to add)."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "opslib.cli", *args],
        cwd=cwd, env=dict(os.environ), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def test_demo_as_admin_applies_product_upkeep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a demo database of this test's own: the apply changes it
    monkeypatch.setenv("OPSLIB_EMBEDDED_DB", str(tmp_path / "demo" / "demo.db"))
    exported = _cli("products", "export", "products.csv", "--demo", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    with (tmp_path / "products.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    new = {**rows[0], "product_id": "p-demo-new", "product_name": "Added on the demo",
           "product_secret": "demo-secret-1"}  # fmt: skip
    with (tmp_path / "products.csv").open("a", newline="") as handle:
        csv.DictWriter(handle, fieldnames=list(rows[0])).writerow(new)
    apply = ["report", "run", "product_upkeep", "-p", "products_path", "products.csv",
             "-p", "apply", "true", "--demo", "--out", "out"]  # fmt: skip

    refused = _cli(*apply, cwd=tmp_path)
    assert refused.returncode == 2
    assert "needs the admin role" in refused.stderr
    assert "add --as admin to --demo" in refused.stderr

    done = _cli(*apply, "--as", "admin", cwd=tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout
    again = _cli("products", "export", "after.csv", "--demo", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "p-demo-new,Added on the demo" in (tmp_path / "after.csv").read_text()
    html = next((tmp_path / "out" / "product_upkeep").glob("*/product_upkeep.html")).read_text()
    assert "DEMO DATA" in html
    assert "Applied: 1 done, 0 failed, 0 skipped." in html

    wrong = _cli("report", "run", "fleet_inventory", "--as", "admin", "--out", "out", cwd=tmp_path)
    assert wrong.returncode == 2
    assert "--as 'admin' picks an account of the demo platform and needs --demo" in wrong.stderr
