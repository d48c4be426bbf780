"""Paging a closed past window while the simulator inserts events: each event exactly once.

The window is filled first (reports with past timestamps), then closed: nothing is written
into it afterwards, while ``opslib.server.simulate.Simulator`` keeps inserting live events
(now) on the same platform. A full ``events.list`` over the window (pages fetched in
parallel by the client), and a slow page-by-page walk over the wire, must each return every
event of the window exactly once: the same ids as a direct SQL query of the window.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from typing import TYPE_CHECKING

import httpx

from opslib.server import demo
from opslib.server.security import demo_device_secret
from opslib.server.simulate import SimulationResult, Simulator

from .wire import envelope, login

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

HOUR_MS = 3600_000


def window_ids(platform: ServedPlatform, start: int, end: int) -> list[str]:
    conn = sqlite3.connect(platform.db)
    try:
        rows = conn.execute(
            "SELECT event_id FROM events WHERE ts >= ? AND ts < ? ORDER BY ts, event_id",
            (start, end),
        ).fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def event_count(platform: ServedPlatform) -> int:
    conn = sqlite3.connect(platform.db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    finally:
        conn.close()


def fill_window(platform: ServedPlatform, start: int, end: int, n: int = 6000) -> None:
    """``n`` events spread over [start, end), reported by ten seeded devices."""
    conn = sqlite3.connect(platform.db)
    devices = [r[0] for r in conn.execute("SELECT device_id FROM devices LIMIT 10")]
    conn.close()
    step = (end - start) // n
    with httpx.Client(base_url=platform.base_url, trust_env=False, timeout=30) as http:
        for batch in range(n // 500):
            device = devices[batch % len(devices)]
            events = [
                {"event_type": 3, "properties": {"k": i}, "ts": start + (batch * 500 + i) * step}
                for i in range(500)
            ]
            body = {
                "message_id": str(uuid.uuid4()),
                "device_id": device,
                "device_secret": demo_device_secret(device),
                "events": events,
            }
            r = http.post("/device/report", json=body)
            assert r.status_code == 200, r.text


def test_a_closed_window_pages_exactly_once_during_inserts(fresh_platform: ServedPlatform) -> None:
    now = int(time.time() * 1000)
    start, end = now - 50 * HOUR_MS, now - HOUR_MS  # closed: the simulator reports at now
    fill_window(fresh_platform, start, end)
    expected = window_ids(fresh_platform, start, end)
    assert len(expected) > 6000

    sim = Simulator(fresh_platform.base_url, devices=20, rate=400, seconds=60, seed=7)
    result: list[SimulationResult] = []
    runner = threading.Thread(target=lambda: result.append(sim.run()), daemon=True)
    runner.start()
    try:
        deadline = time.monotonic() + 30
        before = event_count(fresh_platform)
        while event_count(fresh_platform) < before + 200:  # the inserts have begun
            assert time.monotonic() < deadline, "the simulator inserted nothing"
            time.sleep(0.05)

        client = fresh_platform.connect("ops")
        df = client.events.list(start, end, page_size=100)
        assert df["event_id"].is_unique
        assert len(df) == len(expected)
        assert set(df["event_id"]) == set(expected)

        # page by page over the wire, one page at a time, while the inserts go on
        seen: list[str] = []
        with httpx.Client(base_url=fresh_platform.base_url, trust_env=False, timeout=30) as http:
            user_id, token = login(http, demo.OPS_PHONE, demo.OPS_PASSWORD)
            page_no, total = 1, None
            while total is None or (page_no - 1) * 250 < total:
                params = {"query_model": 3, "start": start, "end": end}
                params |= {"page_no": page_no, "page_size": 250}
                r = http.post("/device/query_record", json=envelope(user_id, token, params))
                assert r.status_code == 200, r.text
                data = r.json()["data"]
                assert total is None or data["total"] == total  # the window stays closed
                total = data["total"]
                seen += [e["event_id"] for e in data["events_list"]]
                page_no += 1
        assert seen == expected  # in order, each once
        inserted = event_count(fresh_platform) - before
    finally:
        sim.stop()
        runner.join(timeout=30)
    assert inserted > 200
    assert result
    assert result[0].accepted > 200
    assert window_ids(fresh_platform, start, end) == expected
