"""No secret in the locals of a server frame a traceback can show (the
server's side).

Error reporters (Sentry, rich's ``show_locals``, IPython's verbose tracebacks) record the
local variables of every frame of a traceback. The platform holds passwords, SMS codes,
tokens and client, device and product secrets as ``security.Secret`` (whose repr hides
them) from validation to the hash, and what it issues until it is written to the wire.

Through every failure of the auth and token paths (and their successes), this test
watches, by tracing the server's threads:

- every frame of ``opslib/server`` that ends in an exception (its exception event is
  followed by its return, with no line run in between), and
- every frame of ``opslib/server`` in the traceback of an exception the server logs
  (an internal error);

and looks for each secret of the flow in the repr of each local (and of the items of
containers). A 6-digit SMS code is looked for quoted, so that timestamps do not match.
"""

from __future__ import annotations

import logging
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from server.factories import build_world
from server.helpers import Api, TestClient

import opslib.server
from opslib.server import FakeClock, Settings, create_app, security
from opslib.server.store import users as users_store

SERVER_DIR = str(Path(opslib.server.__file__).parent)
START_MS = 1_714_521_600_000


def _texts(value: Any, depth: int = 0) -> Iterator[str]:
    yield repr(value)
    if depth >= 4:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(key, depth + 1)
            yield from _texts(item, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _texts(item, depth + 1)


class Watch:
    """Traces the server's frames; collects (where, local name) of locals holding a secret."""

    def __init__(self) -> None:
        self.secrets: set[str] = set()
        self.codes: set[str] = set()  # 6 digits: looked for in quotes only
        self.leaks: list[tuple[str, str, str]] = []
        self.frames_checked = 0
        self._pending: dict[int, BaseException] = {}
        self._lock = threading.Lock()

    def check(self, frame: FrameType, why: str) -> None:
        with self._lock:
            self.frames_checked += 1
            needles = [*self.secrets, *(f"'{c}'" for c in self.codes)]
            needles += [f'"{c}"' for c in self.codes]
        where = f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name} ({why})"
        for name, value in list(frame.f_locals.items()):
            for text in _texts(value):
                hit = next((n for n in needles if n in text), None)
                if hit is not None:
                    with self._lock:
                        self.leaks.append((where, name, text[:120]))
                    break

    def global_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename.startswith(SERVER_DIR):
            return self.local_trace
        return None

    def local_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        key = id(frame)
        if event == "exception":
            self._pending[key] = arg[1]
        elif event == "line":
            self._pending.pop(key, None)
        elif event == "return" and self._pending.pop(key, None) is not None:
            self.check(frame, "ends in an exception")
        return self.local_trace


class LoggedTracebacks(logging.Handler):
    """Checks the server frames of every logged exception's traceback."""

    def __init__(self, watch: Watch) -> None:
        super().__init__(level=logging.DEBUG)
        self.watch = watch
        self.logged = 0

    def emit(self, record: logging.LogRecord) -> None:
        if not record.exc_info or record.exc_info[2] is None:
            return
        self.logged += 1
        tb = record.exc_info[2]
        while tb is not None:
            if tb.tb_frame.f_code.co_filename.startswith(SERVER_DIR):
                self.watch.check(tb.tb_frame, "in a logged traceback")
            tb = tb.tb_next


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Api, Watch, LoggedTracebacks]]:
    watch = Watch()
    handler = LoggedTracebacks(watch)
    logging.getLogger().addHandler(handler)
    sys.settrace(watch.global_trace)
    threading.settrace(watch.global_trace)
    try:
        clock = FakeClock(START_MS)
        world = build_world(tmp_path / "platform.db", now=clock.now_ms(), events_per_device=5)
        app = create_app(world.db, settings=Settings(), clock=clock)
        with TestClient(app, raise_server_exceptions=False) as client:
            yield Api(client, world, clock), watch, handler
    finally:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
        logging.getLogger().removeHandler(handler)


def _envelope(params: dict[str, Any], user_id: str = "") -> dict[str, Any]:
    return {"message_id": str(uuid.uuid4()), "user_id": user_id, "params": params}


def test_no_secret_in_the_locals_of_failing_server_frames(
    watched: tuple[Api, Watch, LoggedTracebacks], monkeypatch: pytest.MonkeyPatch
) -> None:
    api, watch, logged = watched
    world = api.world
    alice, bob = world["alice"], world["bob"]
    post = api.client.post
    codes = iter(["918273", "827364", "736455", "645546", "554637"])
    monkeypatch.setattr(security, "new_sms_code", lambda: next(codes))
    watch.codes |= {"918273", "827364", "736455", "645546", "554637", "111111"}
    watch.secrets |= {
        alice.password,
        bob.password,
        world.client_secret,
        world.device_secret,
        "wrong-password-1",
        "wrong-client-secret",
        "wrong-device-secret",
        "new-password-77",
        "bogus-token-" + "x" * 20,
        "bogus-refresh-" + "y" * 20,
        "bogus-code-" + "z" * 20,
    }
    client = {"client_id": world.client_id, "area_code": world.area_code}

    def login(phone: str, password: str) -> Any:
        return post(
            "/user/login",
            json=_envelope({**client, "login_model": 1, "phone": phone, "password": password}),
        )

    def token(**form: str) -> Any:
        return post("/token/access", data=form)

    # login: wrong password, unknown client, right password; the code issued is a secret too
    assert login(alice.phone, "wrong-password-1").status_code == 422
    r = post(
        "/user/login",
        json=_envelope(
            {
                **client,
                "client_id": "nope",
                "login_model": 1,
                "phone": alice.phone,
                "password": alice.password,
            }
        ),
    )
    assert r.status_code == 401
    r = login(alice.phone, alice.password)
    assert r.status_code == 200, r.text
    code = r.json()["data"]["code"]
    watch.secrets.add(code)

    # the token op: wrong client secret, unknown code, the right exchange, a reuse
    exchange = {
        "grant_type": "authorization_code",
        "client_id": world.client_id,
        "redirect_uri": "none",
    }
    assert token(**exchange, client_secret="wrong-client-secret", code=code).status_code == 401
    bogus = "bogus-code-" + "z" * 20
    assert token(**exchange, client_secret=world.client_secret, code=bogus).status_code == 400
    r = token(**exchange, client_secret=world.client_secret, code=code)
    assert r.status_code == 200, r.text
    pair = r.json()
    watch.secrets |= {pair["access_token"], pair["refresh_token"]}
    assert token(**exchange, client_secret=world.client_secret, code=code).status_code == 400
    # ... refresh: unknown, revoked family, Basic malformed, a parameter twice, too big
    refresh = {"grant_type": "refresh_token", "client_id": world.client_id}
    bogus_refresh = "bogus-refresh-" + "y" * 20
    r = token(**refresh, client_secret=world.client_secret, refresh_token=bogus_refresh)
    assert r.status_code == 400
    r = token(**refresh, client_secret=world.client_secret, refresh_token=pair["refresh_token"])
    assert r.status_code == 400  # its family was revoked by the code's reuse
    r = post(
        "/token/access",
        data={**refresh, "refresh_token": pair["refresh_token"]},
        headers={"Authorization": "Basic !!" + world.client_secret},
    )
    assert r.status_code == 401
    r = post(
        "/token/access?client_secret=" + world.client_secret,
        data={**refresh, "client_secret": world.client_secret},
    )
    assert r.status_code == 400
    r = post(
        "/token/access",
        content=("client_secret=" + world.client_secret + "&pad=" + "p" * 1_100_000).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 413

    # authenticated operations: a bogus token, none, a fresh valid one
    bogus_token = "bogus-token-" + "x" * 20
    params = {"access_token": bogus_token}
    assert post("/device/query_by_user", json=_envelope(params)).status_code == 401
    assert post("/device/query_by_user", json=_envelope({})).status_code == 401
    access = api.token("alice")
    watch.secrets.add(access)
    change = {"update_model": 1, "access_token": access, "new_password": "new-password-77"}
    for _ in range(6):  # wrong old passwords, then the throttle
        r = post(
            "/user/update_pwd",
            json=_envelope({**change, "old_password": "wrong-password-1"}, alice.user_id),
        )
    assert r.status_code == 429
    r = post("/user/update_pwd", json=_envelope({**change, "old_password": "short"}, alice.user_id))
    assert r.status_code == 400  # a too-short password is in pydantic's error

    big = {**client, "phone": "5559990002", "password": "new-password-77", "pad": "p" * 1_100_000}
    assert post("/user/register", json=_envelope(big)).status_code == 413

    # SMS codes: register and reset with wrong and right codes
    unregistered = "5559990001"
    send = {**client, "auth_model": 1, "phone": unregistered}
    assert post("/user/auth_code", json=_envelope({**send, "code_model": 1})).status_code == 200
    register = {**client, "phone": unregistered, "password": "new-password-77"}
    r = post("/user/register", json=_envelope({**register, "auth_code": "111111"}))
    assert r.status_code == 422
    r = post("/user/register", json=_envelope({**register, "auth_code": "918273"}))
    assert r.status_code == 200, r.text
    watch.secrets.add(r.json()["data"]["code"])
    send = {**client, "auth_model": 1, "phone": bob.phone, "code_model": 3}
    assert post("/user/auth_code", json=_envelope(send)).status_code == 200
    reset = {
        "update_model": 2,
        "area_code": world.area_code,
        "phone": bob.phone,
        "new_password": "new-password-77",
    }
    assert (
        post("/user/update_pwd", json=_envelope({**reset, "auth_code": "111111"})).status_code
        == 422
    )
    assert (
        post("/user/update_pwd", json=_envelope({**reset, "auth_code": "827364"})).status_code
        == 200
    )

    # device secrets: a report and a bind with the wrong one
    report = {
        "message_id": str(uuid.uuid4()),
        "device_id": "dev-a1",
        "device_secret": "wrong-device-secret",
        "events": [{"event_type": 1}],
    }
    assert post("/device/report", json=report).status_code == 401
    bind = {
        "access_token": api.token("bob"),
        "device_id": "dev-free",
        "device_secret": "wrong-device-secret",
        "product_id": "p-lamp",
    }
    watch.secrets.add(bind["access_token"])
    assert post("/device/bind", json=_envelope(bind, bob.user_id)).status_code == 422

    # an internal error in the middle of a login: the logged traceback's frames
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(users_store, "get_user_by_phone", broken)
    assert login(bob.phone, "new-password-77").status_code == 500

    assert logged.logged >= 1
    assert watch.frames_checked >= 30, watch.frames_checked
    print(f"\n{watch.frames_checked} server frames checked, {logged.logged} logged tracebacks")
    assert watch.leaks == [], "\n".join(map(str, watch.leaks))
