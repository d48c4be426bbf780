"""A bounded loopback load test: 8 concurrent clients for 20 seconds, reads and writes mixed.

``opslib server`` runs as a subprocess (default settings, per-token rate limit included) over
a copy of the small seeded database; eight threads, each logged in with its own token (two
admins, three ops, three plain users), send a seeded mix of fleet and own event pages,
device pages, user reads, device reports, profile and settings updates and (admins)
product additions, for 20 seconds, then stop. Afterwards:

- no 5xx, no 429, no other failure; no "database is locked" or internal error in the log;
- exact counts: the events, products and SMS-free tables grew by exactly what was
  acknowledged;
- the figures (requests, requests/s, p50/p99 latency, errors) are printed for
  docs/reliability.md (``pytest -m slow -s``).
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from opslib.server import demo
from opslib.server.security import demo_device_secret

from .wire import ServerProcess, envelope, login

CLIENTS = 8
SECONDS = 20.0
ACCOUNTS = (
    [("admin", demo.ADMIN_PHONE, demo.ADMIN_PASSWORD)] * 2
    + [("ops", demo.OPS_PHONE, demo.OPS_PASSWORD)] * 3
    + [("user", demo.USER_PHONE, demo.USER_PASSWORD)] * 3
)


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    by_op: Counter[str] = field(default_factory=Counter)
    events: int = 0
    products: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def query(db: Path, sql: str, *args: Any) -> Any:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchone()[0]
    finally:
        conn.close()


def client(
    n: int, base_url: str, auth: tuple[str, str, str], devices: list[str], until: float, t: Tally
) -> None:
    role, user_id, token = auth
    rng = random.Random(1000 + n)
    now = int(time.time() * 1000)
    with httpx.Client(base_url=base_url, trust_env=False, timeout=30) as http:
        i = 0
        while time.monotonic() < until:
            i += 1
            u = rng.random()
            if u < 0.40:
                model = (
                    {"query_model": 3}
                    if role != "user"
                    else {"query_model": 2, "user_id_param": user_id}
                )
                params = {**model, "start": now - 4 * 86_400_000, "end": now + 3600_000}
                params |= {"page_no": rng.randint(1, 5), "page_size": rng.choice((20, 100, 500))}
                op, body = "/device/query_record", envelope(user_id, token, params)
            elif u < 0.60:
                params = {"page_no": rng.randint(1, 3), "page_size": 20}
                if role != "user":
                    params["user_id"] = ""
                op, body = "/device/query_by_user", envelope(user_id, token, params)
            elif u < 0.70:
                op = "/user/query"
                body = envelope(user_id, token, {"query_model": 1, "user_id": user_id})
            elif u < 0.85:
                device = rng.choice(devices)
                k = rng.randint(1, 20)
                op = "/device/report"
                body = {
                    "message_id": str(uuid.uuid4()),
                    "device_id": device,
                    "device_secret": demo_device_secret(device),
                    "events": [{"event_type": 3, "properties": {"load": i}}] * k,
                }
            elif u < 0.95:
                op = "/user/update_user_info"
                body = envelope(user_id, token, {"nick_name": f"load-{n}-{i}"})
            elif role == "admin":
                product_id = f"p-load-{n}-{i}"
                params = {
                    "product_id": product_id,
                    "product_secret": "load-product-secret",
                    "product_name": f"Load {n} {i}",
                    "category_id": 1,
                    "net_type": 1,
                    "node_type": 1,
                }
                op, body = "/product/add", envelope(user_id, token, params)
            else:
                op = "/user/update_sys_setting"
                body = envelope(user_id, token, {"message_config": {"start": i % 1440}})
            started = time.perf_counter()
            r = http.post(op, json=body)
            t.latencies.append(time.perf_counter() - started)
            t.statuses[r.status_code] += 1
            t.by_op[op] += 1
            if r.status_code != 200:
                t.failures.append(f"{op}: {r.status_code} {r.text[:200]}")
            elif op == "/device/report":
                t.events += r.json()["data"]["accepted"]
            elif op == "/product/add":
                t.products.append(r.json())


@pytest.mark.slow
def test_eight_clients_for_twenty_seconds(seeded_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "load.db"
    source, target = sqlite3.connect(seeded_db), sqlite3.connect(db)
    source.backup(target)
    source.close()
    target.close()
    conn = sqlite3.connect(db)
    devices = [r[0] for r in conn.execute("SELECT device_id FROM devices ORDER BY device_id")]
    conn.close()
    events_before = query(db, "SELECT COUNT(*) FROM events")
    products_before = query(db, "SELECT COUNT(*) FROM products")
    server = ServerProcess(db, tmp_path / "server.log")
    server.start()
    tallies = [Tally() for _ in range(CLIENTS)]
    try:
        with httpx.Client(base_url=server.base_url, trust_env=False, timeout=30) as http:
            auths = [(role, *login(http, phone, pw)) for role, phone, pw in ACCOUNTS]
        started = time.monotonic()
        until = started + SECONDS
        threads = [
            threading.Thread(
                target=client, args=(n, server.base_url, auths[n], devices, until, tallies[n])
            )
            for n in range(CLIENTS)
        ]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=SECONDS + 60)
        elapsed = time.monotonic() - started
        assert not any(th.is_alive() for th in threads)
    finally:
        server.stop()

    statuses: Counter[int] = sum((t.statuses for t in tallies), Counter())
    by_op: Counter[str] = sum((t.by_op for t in tallies), Counter())
    latencies = sorted(x for t in tallies for x in t.latencies)
    failures = [f for t in tallies for f in t.failures]
    requests = len(latencies)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(0.99 * (requests - 1))] * 1000
    print(
        f"\nload: {CLIENTS} clients, {elapsed:.1f} s, {requests} requests, "
        f"{requests / elapsed:.0f} req/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
        f"errors {len(failures)}, statuses {dict(statuses)}\n  by operation {dict(by_op)}"
    )
    assert failures == []
    assert set(statuses) == {200}
    log = server.log.read_text(errors="replace")
    assert "database is locked" not in log
    assert "internal error" not in log
    assert "Traceback" not in log
    # exact counts
    events = sum(t.events for t in tallies)
    products = [p for t in tallies for p in t.products]
    assert query(db, "SELECT COUNT(*) FROM events") == events_before + events
    assert query(db, "SELECT COUNT(*) FROM products") == products_before + len(products)
    assert query(db, "SELECT COUNT(*) FROM products WHERE product_id LIKE 'p-load-%'") == len(
        products
    )
    assert query(db, "PRAGMA integrity_check") == "ok"
    assert requests > 1000
    assert all(by_op[op] > 0 for op in ("/device/report", "/product/add", "/device/query_record"))
