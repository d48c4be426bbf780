"""``opslib simulate --fail-product``: one product's devices fail, then stay silent, on a real
platform (small seeded database)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from opslib.server.simulate import Simulator, simulate_command


def _devices(db: Any, product: str) -> dict[str, tuple[int, int | None]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT device_id, status, gmt_last_seen FROM devices WHERE product_id = ?", (product,)
        ).fetchall()
    finally:
        conn.close()
    return {device: (status, seen) for device, status, seen in rows}


def _a_product(db: Any) -> str:
    conn = sqlite3.connect(db)
    try:
        row = conn.execute(
            "SELECT product_id FROM devices d JOIN bindings b USING (device_id) "
            "GROUP BY product_id HAVING COUNT(*) BETWEEN 3 AND 40 ORDER BY product_id LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    return str(row[0])


@pytest.mark.timeout(120)
def test_every_device_of_the_product_raises_a_fault_goes_offline_and_silent(
    fresh_platform: Any,
) -> None:
    product = _a_product(fresh_platform.db)
    before = _devices(fresh_platform.db, product)
    sim = Simulator(
        fresh_platform.base_url, devices=5, rate=30, seconds=1.5, seed=3, fail_product=product
    )
    result = sim.run()
    after = _devices(fresh_platform.db, product)
    failed = {d for d, (status, seen) in after.items() if seen != before[d][1]}
    assert result.failed_devices == len(failed) > 0
    assert all(after[d][0] == 2 for d in failed)  # offline: its last event
    assert not failed & {d.device_id for d in sim.devices}  # silent while the others report
    conn = sqlite3.connect(fresh_platform.db)
    try:
        codes = conn.execute(
            "SELECT DISTINCT code FROM events WHERE event_type = 4 AND device_id IN "
            f"({','.join('?' * len(failed))}) AND ts > ?",
            (*failed, max(seen or 0 for _, seen in before.values())),
        ).fetchall()
    finally:
        conn.close()
    assert codes == [("F201",)]
    assert "devices failed" in result.summary()


def test_an_unknown_product_is_a_bad_argument(
    fresh_platform: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code = simulate_command(
        fresh_platform.base_url, devices=1, rate=1, seconds=1, fail_product="p-nope"
    )
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "opslib simulate: --fail-product 'p-nope': no device of that product in the fleet listing"
    )
