"""The platform's one edge (``opslib/server/wire.py``) under every dialect.

Each built-in dialect is served over a copy of one seeded database (folded onto what
``chint`` can say for that one). Every body goes through the core's guards first (the
size limit before anything is read), then the codec, then the route's model: a body the
edge cannot read is a parameter error in the dialect, never a 500 and never a request
passed on untranslated.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from conftest import _copy_db, _demo_fields

import opslib
from opslib.dialects import Dialect
from opslib.protocol import Codec
from opslib.protocol import operations as ops
from opslib.server.runner import start_in_thread
from opslib.server.seed.dialect import fold_onto_dialect

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform as PlatformType

DIALECTS = Dialect.names()
MID = "00000000-0000-4000-8000-0000000000e1"


@pytest.fixture(scope="module")
def servers(
    seeded_db: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, PlatformType]]:
    """One platform per built-in dialect, each over its own copy of the seeded database."""
    from conftest import ServedPlatform

    base = tmp_path_factory.mktemp("edge")
    running: dict[str, PlatformType] = {}
    for name in DIALECTS:
        db = base / f"{name}.db"
        _copy_db(seeded_db, db)
        dialect = Dialect.named(name)
        fold_onto_dialect(db, dialect)
        url, stop = start_in_thread(db, dialect=name)
        running[name] = ServedPlatform(
            base_url=url, db=db, stop=stop, dialect=name, **_demo_fields()
        )
    yield running
    for platform in running.values():
        platform.stop()


def _post(platform: PlatformType, path: str, body: bytes | dict[str, Any]) -> httpx.Response:
    if isinstance(body, dict):
        return httpx.post(f"{platform.base_url}{path}", json=body)
    headers = {"Content-Type": "application/json"}
    return httpx.post(f"{platform.base_url}{path}", content=body, headers=headers)


def _error(name: str, answer: httpx.Response, path: str) -> opslib.APIError:
    """The exception a client of the dialect reads from a failed answer."""
    codec = Codec(Dialect.named(name))
    body = answer.json()
    assert not codec.errors.is_success(answer.status_code, body), body
    return codec.errors.error(answer.status_code, body, operation=path)


def _login(platform: PlatformType, role: str = "user") -> tuple[str, str]:
    client = platform.connect(role)
    return client.user_id, client._session.tokens.access_token()


def _deep(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


_LOGIN = (
    '"client_id": "opslib-demo", "login_model": 1, "area_code": "1", '
    '"phone": "5550000003", "password": "user-demo-pass"'
)
UNREADABLE = {
    "params an array": f'{{"message_id": "{MID}", "user_id": "", "params": [1]}}',
    "1000 levels deep": f'{{"message_id": "{MID}", "user_id": "", "params": {_deep(1000)}}}',
    "300 levels deep inside params": (
        f'{{"message_id": "{MID}", "user_id": "", "params": {{{_LOGIN}, "x": {_deep(300)}}}}}'
    ),
    "NaN": f'{{"message_id": "{MID}", "user_id": "", "params": {{{_LOGIN}, "x": NaN}}}}',
    "not JSON": "{{{",
    "a string": '"params"',
}


@pytest.mark.parametrize("name", DIALECTS)
@pytest.mark.parametrize("kind", sorted(UNREADABLE))
def test_a_body_it_cannot_read_is_a_parameter_error_never_a_500(
    servers: dict[str, PlatformType], name: str, kind: str
) -> None:
    answer = _post(servers[name], ops.LOGIN.path, UNREADABLE[kind].encode())
    error = _error(name, answer, ops.LOGIN.path)
    assert isinstance(error, opslib.BadRequest), (kind, answer.status_code, answer.text[:200])
    assert answer.status_code in (200, 400)


@pytest.mark.parametrize("name", DIALECTS)
def test_booleans_are_not_selectors(servers: dict[str, PlatformType], name: str) -> None:
    platform = servers[name]
    user_id, token = _login(platform)
    codec = Codec(Dialect.named(name))
    params = codec.encode_params(
        ops.QUERY_RECORD,
        {
            "query_model": 2,
            "user_id_param": user_id,
            "start": 0,
            "end": 4_102_444_800_000,
            "page_no": 1,
            "page_size": 50,
        },
        user_id=user_id,
    )
    sent = {"message_id": str(uuid.uuid4()), "user_id": user_id,
            "params": {**params, "query_model": True, "access_token": token}}  # fmt: skip
    answer = _post(platform, ops.QUERY_RECORD.path, sent)
    error = _error(name, answer, ops.QUERY_RECORD.path)
    assert isinstance(error, opslib.BadRequest)
    assert "params.query_model" in str(error)


@pytest.mark.parametrize("name", DIALECTS)
def test_a_page_of_1000_0_is_not_past_the_cap(servers: dict[str, PlatformType], name: str) -> None:
    """``1000.0`` is the whole number 1000 (the core's rule): a dialect capped at 100
    refuses it or cuts it to 100, never serves 1000 rows."""
    platform = servers[name]
    dialect = Dialect.named(name)
    client = platform.connect("user")
    codec = Codec(dialect)
    params = codec.encode_params(
        ops.QUERY_BY_USER,
        {"user_id": client.user_id, "page_no": 1, "page_size": 10},
        user_id=client.user_id,
    )
    params.update(page_size=1000.0, access_token=client._session.tokens.access_token())
    sent = {"message_id": str(uuid.uuid4()), "user_id": client.user_id, "params": params}
    answer = _post(platform, ops.QUERY_BY_USER.path, sent)
    cap = dialect.paging.max_page_size
    if dialect.serving.over_cap == "refuse" and cap < 1000:
        error = _error(name, answer, ops.QUERY_BY_USER.path)
        assert isinstance(error, opslib.BadRequest)
        assert f"params.page_size: must be 1..{cap}" in str(error)
        return
    data = answer.json()["data"]
    assert data["page_size"] == min(cap, 1000)
    assert 0 < len(data["device_list"]) <= cap


def test_a_fleet_page_of_1000_0_is_cut_to_the_vendors_100(
    servers: dict[str, PlatformType],
) -> None:
    """More than 100 events in the fleet: the vendor platform's page holds 100, and the
    total counts its pages of 100."""
    platform = servers["vendor"]
    client = platform.connect("ops")
    token = client._session.tokens.access_token()
    params = {"query_model": 3, "start": 0, "end": 4_102_444_800, "page_no": 1,
              "page_size": 1000.0, "access_token": token}  # fmt: skip
    sent = {"message_id": str(uuid.uuid4()), "user_id": client.user_id, "params": params}
    data = _post(platform, ops.QUERY_RECORD.path, sent).json()["data"]
    assert data["page_size"] == 100
    assert len(data["events_list"]) == 100
    assert data["total"] > 1  # pages of 100


def test_never_is_the_dialects_never_under_chint(servers: dict[str, PlatformType]) -> None:
    """A user who never logged out (the seeded ops account) has no ``gmt_logout``: the
    reference types it a string or a number there (U 452-454), so it is
    ``serving.never``, not null."""
    platform = servers["chint"]
    user_id, token = _login(platform, "ops")
    sent = {"message_id": str(uuid.uuid4()), "user_id": user_id,
            "params": {"query_model": 0, "user_id": user_id, "access_token": token}}  # fmt: skip
    data = _post(platform, ops.USER_QUERY.path, sent).json()["data"]
    assert data["gmt_logout"] == Dialect.named("chint").serving.never == 0
    assert isinstance(data["gmt_register"], int)


def _auth_code(platform: PlatformType, auth_model: int, phone: str, **more: Any) -> Any:
    params = {"client_id": platform.client_id, "auth_model": auth_model, "code_model": 0,
              "area_code": platform.area_code, "phone": phone, **more}  # fmt: skip
    sent = {"message_id": str(uuid.uuid4()), "user_id": "", "params": params}
    return _post(platform, ops.AUTH_CODE.path, sent).json()


def test_chint_verify_checks_a_code_of_any_purpose(servers: dict[str, PlatformType]) -> None:
    """``auth_model`` 6 verifies a code whatever it was sent for (U 43-52): a login code
    (1) and a reset code (4), sent to two phones (one code a minute each)."""
    platform = servers["chint"]
    for purpose, phone in ((1, platform.ops_phone), (4, platform.admin_phone)):
        assert _auth_code(platform, purpose, phone)["error_code"] == 200
        code = platform.last_code(phone)
        wrong = "000000" if code != "000000" else "111111"
        assert _auth_code(platform, 6, phone, auth_code=wrong)["error_code"] == 8102
        assert _auth_code(platform, 6, phone, auth_code=code)["error_code"] == 200, purpose


@pytest.mark.parametrize("name", DIALECTS)
def test_no_such_path_or_method_is_answered_in_the_dialect(
    servers: dict[str, PlatformType], name: str
) -> None:
    platform = servers[name]
    codec = Codec(Dialect.named(name))
    in_body = codec.dialect.errors.signalling != "status"
    answer = httpx.post(f"{platform.base_url}/device/no_such_operation", json={})
    assert isinstance(_error(name, answer, "/"), opslib.NotFound), answer.text
    assert (answer.status_code == 200) == in_body
    for path in (ops.DEVICE_QUERY.path, ops.TOKEN.path):
        answer = httpx.get(f"{platform.base_url}{path}")
        assert answer.headers["allow"] == "POST"
        assert (answer.status_code == 200) == in_body, (path, answer.status_code)
        body = answer.json()
        if path == ops.TOKEN.path:  # flat, as the token call's refusals
            expected = codec.errors.served_token_code(405, "invalid_request", "")
            assert "message_id" not in body
        else:
            expected = codec.errors.served_code(405, path, "")
        assert body["error_code"] == (405 if codec.plain else expected), (path, body)
        assert codec.errors.message(body, "") == "method: every operation is POST"


# -- the size limit, before any body is read -------------------------------------------------


def _rss_peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def _post_raw(port: int, path: str, size: int) -> bytes:
    """POST ``size`` bytes (declared) and read what the server answers while it is sent."""
    sock = socket.create_connection(("127.0.0.1", port))
    answer = bytearray()

    def read() -> None:
        try:
            while chunk := sock.recv(65536):
                answer.extend(chunk)
        except OSError:
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    )
    chunk = b'{"message_id": "' + b"x" * (1 << 20)
    try:
        sock.sendall(head.encode())
        sent = 0
        while sent < size:
            sock.sendall(chunk[: size - sent])
            sent += len(chunk)
    except OSError:
        pass  # the server answered and closed: the rest is never read
    deadline = time.monotonic() + 30
    while b"\r\n\r\n" not in answer and time.monotonic() < deadline:
        time.sleep(0.05)
    sock.close()
    reader.join(5)
    return bytes(answer)


def test_a_60_mb_post_is_refused_before_it_is_read(seeded_db: Path, tmp_path: Path) -> None:
    """One unauthenticated 60 MB POST to ``opslib server --dialect chint`` (a process of
    its own): the size limit refuses it (413, in the dialect) and the server's peak RSS
    grows by less than 50 MB."""
    from reliability.wire import ServerProcess

    db = tmp_path / "chint.db"
    _copy_db(seeded_db, db)
    server = ServerProcess(db, tmp_path / "server.log", dialect="chint")
    server.start()
    try:
        assert server.proc is not None
        before = _rss_peak_mb(server.proc.pid)
        answer = _post_raw(server.port, ops.QUERY_RECORD.path, 60 << 20)
        grown = _rss_peak_mb(server.proc.pid) - before
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head  # the dialect answers in the body
        assert b'"error_code":413' in body, body[:300]
        assert grown < 50, f"peak RSS grew by {grown:.0f} MB"
        after = httpx.post(f"{server.base_url}/device/no_such", json={}, timeout=5)
        assert after.json()["error_code"] == 8202  # still serving: no such device operation
    finally:
        server.stop()
