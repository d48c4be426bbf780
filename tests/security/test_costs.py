"""What a caller without a password may cost.

Cheap checks (client, SMS code, throttles) come before any argon2id hash in register,
update_pwd and login; a bounded number of hashes run at once, beyond which a 503 with
``Retry-After`` answers at once; wrong old passwords count with the failed logins of the
user's phone. Hashes are counted by wrapping the platform's hasher.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from server.helpers import Api

from opslib.server import security
from opslib.server.services import auth

from .flows import UNREGISTERED, login_password, other_code, register, reset_password, send_code


class CountingHasher:
    """The platform's hasher, counting hashes and verifications."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def hash(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.inner.hash(*args, **kwargs)

    def verify(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.inner.verify(*args, **kwargs)


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> CountingHasher:
    counting = CountingHasher(security._hasher)
    monkeypatch.setattr(security, "_hasher", counting)
    auth._dummy_hash()  # computed once per process, for unknown phones
    counting.calls = 0
    return counting


def _register(api: Api, client_id: str, code: str) -> Any:
    return api.post(
        "/user/register",
        {
            "client_id": client_id,
            "auth_code": code,
            "area_code": "1",
            "phone": UNREGISTERED,
            "password": "new-password-1",
        },
    )


def test_register_checks_client_and_code_before_hashing(api: Api, hashes: CountingHasher) -> None:
    r = _register(api, "no-such-client", "123456")
    assert (r.status_code, hashes.calls) == (401, 0), r.text
    r = _register(api, api.world.client_id, "123456")  # no code was ever sent
    assert (r.status_code, hashes.calls) == (422, 0), r.text
    assert send_code(api, UNREGISTERED, 1).status_code == 200
    code = api.last_code(UNREGISTERED)
    r = register(api, UNREGISTERED, other_code(code))
    assert (r.status_code, hashes.calls) == (422, 0), r.text
    r = register(api, UNREGISTERED, code)
    assert (r.status_code, hashes.calls) == (200, 1), r.text


def test_a_reset_checks_the_code_before_hashing(api: Api, hashes: CountingHasher) -> None:
    bob = api.world["bob"].phone
    r = reset_password(api, bob, "123456", "reset-password-1")
    assert (r.status_code, hashes.calls) == (422, 0), r.text
    r = reset_password(api, "5550123456", "123456", "reset-password-1")  # unknown phone
    assert (r.status_code, hashes.calls) == (422, 0), r.text
    send_code(api, bob, 3)
    code = api.last_code(bob)
    r = reset_password(api, bob, other_code(code), "reset-password-1")
    assert (r.status_code, hashes.calls) == (422, 0), r.text
    r = reset_password(api, bob, code, "reset-password-1")
    assert (r.status_code, hashes.calls) == (200, 1), r.text


def test_login_checks_client_and_throttle_before_hashing(api: Api, hashes: CountingHasher) -> None:
    r = api.post(
        "/user/login",
        {
            "client_id": "no-such-client",
            "login_model": 1,
            "area_code": "1",
            "phone": "5550123456",
            "password": "whatever-1",
        },
    )
    assert (r.status_code, hashes.calls) == (401, 0), r.text
    for _ in range(5):
        assert login_password(api, "5550123456", "whatever-1").status_code == 422
    assert hashes.calls == 5
    r = login_password(api, "5550123456", "whatever-1")
    assert (r.status_code, hashes.calls) == (429, 5), r.text


def _assert_busy(r: Any, started: float) -> None:
    assert r.status_code == 503, r.text
    assert r.headers["Retry-After"] == "1"
    assert r.json()["error_msg"].startswith("server busy")
    assert time.perf_counter() - started < 1.0  # refused at once, never queued


def test_beyond_the_hash_slots_a_503_answers_at_once(api: Api, hashes: CountingHasher) -> None:
    alice = api.world["alice"]
    assert send_code(api, UNREGISTERED, 1).status_code == 200
    code = api.last_code(UNREGISTERED)
    gate = api.client.app.state.platform.guards.hashes  # type: ignore[attr-defined]
    with gate.slot("127.0.0.8"), gate.slot("127.0.0.9"):
        assert gate.busy
        started = time.perf_counter()
        _assert_busy(login_password(api, alice.phone, alice.password), started)
        started = time.perf_counter()
        _assert_busy(register(api, UNREGISTERED, code), started)
        change = {"update_model": 1, "old_password": alice.password, "new_password": "n" * 9}
        started = time.perf_counter()
        _assert_busy(api.as_user("alice", "/user/update_pwd", change), started)
    assert hashes.calls == 0
    # nothing was spent: the code still works, the login was not counted as a failure
    assert register(api, UNREGISTERED, code).status_code == 200
    for _ in range(4):
        assert login_password(api, alice.phone, "wrong-password").status_code == 422
    assert login_password(api, alice.phone, alice.password).status_code == 200


def test_wrong_old_passwords_are_throttled_with_the_logins(api: Api) -> None:
    alice = api.world["alice"]

    def change(old: str) -> Any:
        params = {"update_model": 1, "old_password": old, "new_password": "new-password-9"}
        return api.as_user("alice", "/user/update_pwd", params)

    for _ in range(3):
        assert change("wrong-old-password").status_code == 422
    assert change(alice.password).status_code == 200  # a right one clears the count
    api.__dict__.pop("_tokens")  # the change revoked every token
    statuses = [change("wrong-old-password").status_code for _ in range(6)]
    assert statuses == [422] * 5 + [429]
    r = change("new-password-9")  # even the right password waits now
    assert r.status_code == 429, r.text
    assert int(r.headers["Retry-After"]) > 0
    # they share the phone's failed-login limit (protocol §6.3, §6.16)
    assert login_password(api, alice.phone, "new-password-9").status_code == 429


def _counted(real: Any, running: dict[str, int], seconds: float) -> Any:
    """``real`` taking ``seconds`` longer, counting in ``running`` the calls under way
    ("now") and the most at once ("most")."""
    import threading

    lock = threading.Lock()

    def counted(*args: Any, **kwargs: Any) -> Any:
        with lock:
            running["now"] += 1
            running["most"] = max(running["most"], running["now"])
        time.sleep(seconds)
        with lock:
            running["now"] -= 1
        return real(*args, **kwargs)

    return counted


def test_pre_login_requests_share_a_few_worker_threads(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flood of logins queues behind itself: at most ``prelogin_threads`` run at once,
    and a signed-in user's read is answered meanwhile (real server, real threads)."""
    import threading

    import httpx
    from server.factories import build_world

    from opslib.server import FakeClock, Settings
    from opslib.server.runner import start_in_thread

    world = build_world(tmp_path / "threads.db", now=int(time.time() * 1000))
    running = {"now": 0, "most": 0}
    monkeypatch.setattr(auth, "require_client", _counted(auth.require_client, running, 1.0))
    base_url, stop = start_in_thread(world.db, settings=Settings(prelogin_threads=2))
    try:
        login = {
            "client_id": world.client_id,
            "login_model": 1,
            "area_code": "1",
            "phone": "5550123456",
            "password": "whatever-1",
        }

        def one_login() -> None:
            body = {"message_id": str(uuid.uuid4()), "user_id": "", "params": login}
            httpx.post(f"{base_url}/user/login", json=body, timeout=30)

        threads = [threading.Thread(target=one_login) for _ in range(8)]
        for th in threads:
            th.start()
        time.sleep(0.1)  # the logins are in
        now = FakeClock(int(time.time() * 1000))
        token = Api(httpx.Client(), world, now).token("alice")  # type: ignore[arg-type]
        read = {"message_id": str(uuid.uuid4()), "user_id": world["alice"].user_id,
                "params": {"access_token": token}}  # fmt: skip
        started = time.perf_counter()
        r = httpx.post(f"{base_url}/device/query_by_user", json=read, timeout=30)
        waited = time.perf_counter() - started
        for th in threads:
            th.join(timeout=30)
    finally:
        stop()
    assert r.status_code == 200, r.text
    assert running["most"] == 2
    # Behind the queue of six 1 s logins on two threads it would wait about 3.9 s; a read
    # answered at once took 1.0 s on a machine loaded by the whole suite and a sampler.
    assert waited < 2.0


def test_signed_in_requests_share_answer_threads(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client's pages in flight queue on the event loop: at most ``answer_threads`` of
    them are answered at once, each in turn (real server, real threads); anyio's default
    would run all six side by side, taking turns at the GIL."""
    import threading

    import httpx
    from server.factories import build_world

    from opslib.server import FakeClock, Settings, pipeline
    from opslib.server.runner import start_in_thread

    world = build_world(tmp_path / "answers.db", now=int(time.time() * 1000))
    running = {"now": 0, "most": 0}
    now = FakeClock(int(time.time() * 1000))
    token = Api(httpx.Client(), world, now).token("alice")  # type: ignore[arg-type]
    monkeypatch.setattr(pipeline, "authenticate", _counted(pipeline.authenticate, running, 0.2))
    base_url, stop = start_in_thread(world.db, settings=Settings(answer_threads=2))
    statuses: list[int] = []
    try:

        def one_read() -> None:
            read = {"message_id": str(uuid.uuid4()), "user_id": world["alice"].user_id,
                    "params": {"access_token": token}}  # fmt: skip
            r = httpx.post(f"{base_url}/device/query_by_user", json=read, timeout=30)
            statuses.append(r.status_code)

        threads = [threading.Thread(target=one_read) for _ in range(6)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=30)
    finally:
        stop()
    assert statuses == [200] * 6
    assert running["most"] == 2
