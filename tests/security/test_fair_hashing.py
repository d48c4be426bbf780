"""Fair password hashing: one address flooding logins cannot take every hash slot.

Before: the two argon2id slots were shared with no fairness; under a 40-connection login
flood from one address, 16 of 16 logins from another address got 503. Now one client
address holds at most ``password_hash_slots_per_address`` (1) of the ``password_hash_slots``
(2): a flood from 127.0.0.2 keeps one slot busy and is refused the rest at once, while
logins from 127.0.0.3 find the other. The flood logs in with a right password (its own
account), which no failure limit slows down: only the slots' fairness protects the others.

The short test (three logins during a flood of 8 connections, a server thread) runs in
every suite; the **slow** one floods a server process for 20 s from another process, 40
requests in flight, while 127.0.0.3 logs in again and again.
"""

from __future__ import annotations

import multiprocessing
import statistics
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from cheap_passwords import strengthen
from reliability.wire import ServerProcess

from opslib.server import demo

from .addresses import http_from

FLOODER, OWNER = "127.0.0.2", "127.0.0.3"
# The flood's and the owner's accounts, hashed as the platform hashes (the seeded template's
# are cheap): every login here costs what a login costs in production.
ACCOUNTS = {demo.OPS_PHONE: demo.OPS_PASSWORD, demo.USER_PHONE: demo.USER_PASSWORD}


def _login(phone: str, password: str) -> dict[str, Any]:
    params = {
        "client_id": demo.CLIENT_ID,
        "login_model": 1,
        "area_code": demo.AREA_CODE,
        "phone": phone,
        "password": password,
    }
    return {"message_id": str(uuid.uuid4()), "user_id": "", "params": params}


def _flood(base_url: str, stop: threading.Event, threads: int, statuses: Counter[Any]) -> None:
    """``threads`` connections from FLOODER logging in (ops' right password) until ``stop``."""
    lock = threading.Lock()

    def worker() -> None:
        seen: Counter[Any] = Counter()
        with http_from(base_url, FLOODER) as http:
            while not stop.is_set():
                try:
                    r = http.post("/user/login", json=_login(demo.OPS_PHONE, demo.OPS_PASSWORD))
                    seen[r.status_code] += 1
                    if r.status_code == 503 and "this address" in r.json()["error_msg"]:
                        seen["503 this address"] += 1
                except httpx.HTTPError:
                    seen["connection"] += 1
        with lock:
            statuses.update(seen)

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def _owner_logins(
    base_url: str, *, until: float, at_least: int = 1, pause: float = 0.0
) -> list[tuple[int, float]]:
    """The owner's logins from OWNER, one after another, until ``until`` and at least
    ``at_least`` of them: (status, seconds) each."""
    out: list[tuple[int, float]] = []
    with http_from(base_url, OWNER) as http:
        while time.monotonic() < until or len(out) < at_least:
            started = time.perf_counter()
            r = http.post("/user/login", json=_login(demo.USER_PHONE, demo.USER_PASSWORD))
            out.append((r.status_code, time.perf_counter() - started))
            time.sleep(pause)
    return out


def test_a_login_from_another_address_succeeds_during_a_flood(platform_factory: Any) -> None:
    """Bounded: 8 flooding connections while the owner logs in three times (about a
    second on an idle machine; each login is an argon2id hash)."""
    platform = platform_factory()
    strengthen(platform.db, ACCOUNTS)
    statuses: Counter[Any] = Counter()
    stop = threading.Event()
    flood = threading.Thread(target=_flood, args=(platform.base_url, stop, 8, statuses))
    flood.start()
    try:
        time.sleep(0.3)  # the flood under way
        logins = _owner_logins(platform.base_url, until=0, at_least=3)
    finally:
        stop.set()
        flood.join(timeout=60)
    assert [status for status, _ in logins] == [200] * 3
    assert statuses[200] > 0
    assert statuses["503 this address"] > 0  # the flood wanted more than its share


def _flooder(base_url: str, seconds: float, results: Any) -> None:
    """In its own process: 40 connections from FLOODER for ``seconds``."""
    statuses: Counter[Any] = Counter()
    stop = threading.Event()
    threading.Timer(seconds, stop.set).start()
    _flood(base_url, stop, 40, statuses)
    results.put(dict(statuses))


@pytest.mark.slow
def test_a_login_from_another_address_succeeds_during_a_20_s_flood(
    seeded_db: Path, tmp_path: Path
) -> None:
    from conftest import _copy_db

    db = tmp_path / "fair.db"
    _copy_db(seeded_db, db)
    strengthen(db, ACCOUNTS)
    server = ServerProcess(db, tmp_path / "server.log")
    server.start()
    try:
        results: Any = multiprocessing.get_context("spawn").Queue()
        flooder = multiprocessing.get_context("spawn").Process(
            target=_flooder, args=(server.base_url, 20.0, results)
        )
        flooder.start()
        time.sleep(1.5)  # the flood under way
        logins = _owner_logins(server.base_url, until=time.monotonic() + 17.0, pause=0.05)
        statuses = results.get(timeout=120)
        flooder.join(timeout=30)
    finally:
        server.stop()
    seconds = [s for _, s in logins]
    print(
        f"\nflood from {FLOODER}: 40 in flight for 20 s, statuses {statuses}"
        f"\n  logins from {OWNER}: {len(logins)}, statuses {Counter(s for s, _ in logins)},"
        f" median {statistics.median(seconds) * 1000:.0f} ms, slowest {max(seconds) * 1000:.0f} ms"
    )
    assert [status for status, _ in logins] == [200] * len(logins)
    assert len(logins) >= 2  # each an argon2id hash, on a machine shared with the flood
    assert statuses.get(200, 0) > 0
    assert statuses.get("connection", 0) == 0
