"""Idempotent writes against a real server over loopback (protocol §10).

For each of the ten writing operations: the same request twice gives byte-identical answers
and writes once; the same message_id with other params is a 409. Eight identical requests
sent at once from eight threads, each on its own connection, write once and get the same
answer. The platform is a uvicorn server on 127.0.0.1 over a copy of the seeded database.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from opslib.server import demo
from opslib.server.security import demo_device_secret

from .wire import envelope, login

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def scalar(platform: ServedPlatform, sql: str, *args: Any) -> Any:
    conn = sqlite3.connect(platform.db)
    try:
        return conn.execute(sql, args).fetchone()[0]
    finally:
        conn.close()


@dataclass
class Write:
    """One request to repeat: ``body(variant)`` (variant 1 changes a param) and what it writes."""

    path: str
    body: Callable[[int], dict[str, Any]]
    written: Callable[[], Any]  # a count or state that one write changes


class World:
    """Logged-in callers and fresh objects on a platform of the test's own."""

    def __init__(self, platform: ServedPlatform, http: httpx.Client) -> None:
        self.platform = platform
        self.http = http
        self.admin = login(http, demo.ADMIN_PHONE, demo.ADMIN_PASSWORD)
        self.user = login(http, demo.USER_PHONE, demo.USER_PASSWORD)
        self.device = str(
            scalar(
                platform,
                "SELECT device_id FROM bindings WHERE user_id = ? AND owned = 1 LIMIT 1",
                self.user[0],
            )
        )

    def as_(self, who: tuple[str, str], params: dict[str, Any], mid: str) -> dict[str, Any]:
        return envelope(who[0], who[1], params, mid)

    def sms_code(self, phone: str, code_model: int) -> str:
        r = self.http.post(
            "/user/auth_code", json=pre({**send_params(phone), "code_model": code_model})
        )
        assert r.status_code == 200, r.text
        return self.platform.last_code(phone)


def send_params(phone: str) -> dict[str, Any]:
    return {
        "client_id": demo.CLIENT_ID,
        "auth_model": 1,
        "code_model": 1,
        "area_code": demo.AREA_CODE,
        "phone": phone,
    }


def pre(params: dict[str, Any], mid: str = "") -> dict[str, Any]:
    return {"message_id": mid or str(uuid.uuid4()), "user_id": "", "params": params}


def product(product_id: str, name: str = "Idem") -> dict[str, Any]:
    return {
        "product_id": product_id,
        "product_secret": "idem-product-secret",
        "product_name": name,
        "category_id": 1,
        "net_type": 1,
        "node_type": 1,
    }


def writes(w: World, mid: str) -> dict[str, Write]:
    p = w.platform
    report_device = w.device
    new_phone, reset_phone = "5559870001", demo.USER_PHONE
    out: dict[str, Write] = {}
    out["/user/auth_code"] = Write(
        "/user/auth_code",
        lambda v: pre({**send_params("5559870002"), "code_model": 1 + v}, mid),
        lambda: len(p.sms("5559870002")),
    )
    if "register" not in w.__dict__:
        w.__dict__["register"] = w.sms_code(new_phone, 1)
    out["/user/register"] = Write(
        "/user/register",
        lambda v: pre(
            {
                "client_id": demo.CLIENT_ID,
                "auth_code": w.__dict__["register"],
                "area_code": demo.AREA_CODE,
                "phone": new_phone,
                "password": f"idem-password-{v}",
            },
            mid,
        ),
        lambda: scalar(p, "SELECT COUNT(*) FROM users WHERE phone = ?", new_phone),
    )
    if "reset" not in w.__dict__:
        w.__dict__["reset"] = w.sms_code(reset_phone, 3)
    out["/user/update_pwd"] = Write(
        "/user/update_pwd",
        lambda v: pre(
            {
                "update_model": 2,
                "area_code": demo.AREA_CODE,
                "phone": reset_phone,
                "auth_code": w.__dict__["reset"],
                "new_password": f"idem-password-{v}",
            },
            mid,
        ),
        lambda: scalar(p, "SELECT password_hash FROM users WHERE phone = ?", reset_phone),
    )
    out["/user/update_user_info"] = Write(
        "/user/update_user_info",
        lambda v: w.as_(w.admin, {"nick_name": f"idem-{v}"}, mid),
        lambda: scalar(
            p, "SELECT gmt_modified || nick_name FROM users WHERE user_id = ?", w.admin[0]
        ),
    )
    out["/user/update_sys_setting"] = Write(
        "/user/update_sys_setting",
        lambda v: w.as_(w.admin, {"message_config": {"start": 100 + v}}, mid),
        lambda: scalar(p, "SELECT COUNT(*) || MAX(gmt_modified) FROM settings"),
    )
    out["/product/add"] = Write(
        "/product/add",
        lambda v: w.as_(w.admin, product("p-idem-add", f"Idem {v}"), mid),
        lambda: scalar(p, "SELECT COUNT(*) FROM products WHERE product_id = 'p-idem-add'"),
    )
    out["/product/delete"] = Write(
        "/product/delete",
        lambda v: w.as_(w.admin, {"product_id": f"p-idem-del-{v}"}, mid),
        lambda: scalar(p, "SELECT COUNT(*) FROM products WHERE product_id LIKE 'p-idem-del%'"),
    )
    out["/device/bind"] = Write(
        "/device/bind",
        lambda v: w.as_(
            w.user,
            {
                "device_id": "dev-idem-bind",
                "device_secret": "idem-device-secret",
                "product_id": "p-idem-del-1",
                "group_id": v,
            },
            mid,
        ),
        lambda: scalar(p, "SELECT COUNT(*) FROM bindings WHERE device_id = 'dev-idem-bind'"),
    )
    out["/device/update_info"] = Write(
        "/device/update_info",
        lambda v: w.as_(w.user, {"device_id": report_device, "group_id": 40 + v}, mid),
        # the caller's own binding: a shared device has other users' bindings too
        lambda: scalar(
            p,
            "SELECT group_id FROM bindings WHERE device_id = ? AND user_id = ?",
            report_device,
            w.user[0],
        ),
    )
    out["/device/report"] = Write(
        "/device/report",
        lambda v: {
            "message_id": mid,
            "device_id": report_device,
            "device_secret": demo_device_secret(report_device),
            "events": [{"event_type": 3, "properties": {"idem": v}}] * 3,
        },
        lambda: scalar(p, "SELECT COUNT(*) FROM events WHERE device_id = ?", report_device),
    )
    return out


WRITES = [
    "/user/auth_code",
    "/user/register",
    "/user/update_pwd",
    "/user/update_user_info",
    "/user/update_sys_setting",
    "/product/add",
    "/product/delete",
    "/device/bind",
    "/device/update_info",
    "/device/report",
]


@pytest.fixture
def world(fresh_platform: ServedPlatform) -> Any:
    with httpx.Client(base_url=fresh_platform.base_url, trust_env=False, timeout=30) as http:
        w = World(fresh_platform, http)
        for v in (0, 1):  # products to delete (one is also bound to)
            r = http.post("/product/add", json=w.as_(w.admin, product(f"p-idem-del-{v}"), ""))
            assert r.status_code == 200, r.text
        yield w


@pytest.mark.parametrize("path", WRITES)
def test_a_write_repeated_writes_once_and_answers_the_same(world: World, path: str) -> None:
    mid = str(uuid.uuid4())
    write = writes(world, mid)[path]
    before = write.written()
    first = world.http.post(path, json=write.body(0))
    assert first.status_code == 200, first.text
    after = write.written()
    assert after != before
    again = world.http.post(path, json=write.body(0))
    assert again.status_code == 200
    assert again.content == first.content  # register: its first code, none issued again
    assert write.written() == after
    other = world.http.post(path, json=write.body(1))
    assert other.status_code == 409, other.text
    assert other.json()["error_msg"].startswith("message_id:")
    assert write.written() == after


CONCURRENT = ["/product/add", "/device/bind", "/device/report", "/user/register", "/user/auth_code"]


@pytest.mark.parametrize("path", CONCURRENT)
def test_identical_requests_at_once_write_once(world: World, path: str) -> None:
    mid = str(uuid.uuid4())
    write = writes(world, mid)[path]
    body = write.body(0)
    before = write.written()
    n = 8
    barrier = threading.Barrier(n)
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def send() -> None:
        with httpx.Client(base_url=world.platform.base_url, trust_env=False, timeout=30) as http:
            http.post("/user/none")  # open the connection before the barrier
            barrier.wait()
            r = http.post(path, json=body)
            while r.status_code == 503:  # every password-hash slot taken: retry, as clients do
                time.sleep(float(r.headers["Retry-After"]))
                r = http.post(path, json=body)
            with lock:
                answers.append(r)

    threads = [threading.Thread(target=send) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(answers) == n
    assert {r.status_code for r in answers} == {200}, [r.text for r in answers]
    assert len({r.content for r in answers}) == 1
    after = write.written()
    if path == "/device/report":
        assert after == before + 3
    elif path == "/user/auth_code":
        assert after == before + 1  # one SMS
    else:
        assert (before, after) == (0, 1)
    assert scalar(world.platform, "SELECT COUNT(*) FROM idempotency WHERE message_id = ?", mid) == 1
