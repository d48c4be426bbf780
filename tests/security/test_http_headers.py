"""What answers say beside their body: challenges, caching, the self-description.

Before: a 401 for an invalid token, an unknown client or a wrong client secret carried
no ``WWW-Authenticate`` (RFC 9110 §11.6.1: every 401 must), and the dialect edges dropped
it; ``/user/login``'s answer, which holds the authorization code and the Wi-Fi password,
had no ``Cache-Control: no-store``; ``/docs`` and ``/openapi.json`` were open on any
platform; a token was accepted with another client's ``client_id``. Now every refusal of
a token carries ``Bearer`` and every refusal of client or device credentials ``Basic``,
under every dialect the platform speaks (an edge answering HTTP 200 keeps the header);
answers with a code, token or secret are ``no-store``; the document is served only by
``opslib server --docs``; a token is good only with its own client's ``client_id``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from server.helpers import Api, TestClient

from opslib.dialects import Dialect
from opslib.server import create_app, security
from opslib.server.store import connect, transaction
from opslib.server.store import tokens as tokens_store

from .flows import UNREGISTERED, login_password, register, send_code

DIALECTS = [None, *sorted(n for n in Dialect.names() if n != "opslib")]


@pytest.fixture(params=DIALECTS, ids=lambda d: d or "opslib")
def spoken(request: pytest.FixtureRequest, api: Api) -> Iterator[tuple[Api, Dialect]]:
    """The world's platform speaking each dialect."""
    app = create_app(api.world.db, clock=api.clock, dialect=request.param)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Api(client, api.world, api.clock), Dialect.named(request.param or "opslib")


def _envelope(params: dict[str, Any], user_id: str = "") -> dict[str, Any]:
    return {"message_id": str(uuid.uuid4()), "user_id": user_id, "params": params}


def test_every_refused_token_says_bearer(spoken: tuple[Api, Dialect]) -> None:
    api, _ = spoken
    query = {"device_id": "dev-a1", "user_id": "u-alice"}
    for token in ("not-a-token", None):
        params = {**query, "access_token": token} if token else query
        r = api.client.post("/device/query", json=_envelope(params, "u-alice"))
        assert r.headers["WWW-Authenticate"].startswith('Bearer realm="opslib"'), r.text
    if api.client.app.state.dialect == Dialect():  # the reference: the 401 itself
        assert r.status_code == 401


def test_every_refused_client_says_basic(spoken: tuple[Api, Dialect]) -> None:
    api, dialect = spoken
    for secret in ("wrong-secret", api.world.client_secret):
        client_id = api.world.client_id if secret != api.world.client_secret else "no-such"
        r = api.token_access(
            grant_type="refresh_token",
            client_id=client_id,
            client_secret=secret,
            refresh_token="whatever",
        )
        assert r.headers["WWW-Authenticate"] == 'Basic realm="opslib"', r.text
        assert r.headers["Cache-Control"] == "no-store"
    login = {
        "client_id": "no-such-client",
        "login_model": dialect.selectors["login_model"]["password"],
        "area_code": "1",
        "phone": api.world["alice"].phone,
        "password": api.world["alice"].password,
    }
    r = api.client.post("/user/login", json=_envelope(login))
    assert r.headers["WWW-Authenticate"] == 'Basic realm="opslib"', r.text


def test_a_refused_device_says_basic(api: Api) -> None:
    body = {
        "message_id": str(uuid.uuid4()),
        "device_id": "dev-a1",
        "device_secret": "wrong-secret",
        "events": [{"event_type": 1}],
    }
    r = api.client.post("/device/report", json=body)
    assert (r.status_code, r.headers["WWW-Authenticate"]) == (401, 'Basic realm="opslib"')


def test_answers_with_a_code_or_token_are_not_stored(spoken: tuple[Api, Dialect]) -> None:
    api, dialect = spoken
    alice = api.world["alice"]
    login = {
        "client_id": api.world.client_id,
        "login_model": dialect.selectors["login_model"]["password"],
        "area_code": "1",
        "phone": alice.phone,
        "password": alice.password,
    }
    r = api.client.post("/user/login", json=_envelope(login))
    assert r.status_code == 200, r.text
    assert (r.headers["Cache-Control"], r.headers["Pragma"]) == ("no-store", "no-cache")
    code = r.json()["data"]["code"]
    t = api.exchange(code)
    assert (t.status_code, t.headers["Cache-Control"]) == (200, "no-store")


def test_register_answers_are_not_stored(api: Api) -> None:
    send_code(api, UNREGISTERED, 1)
    mid = str(uuid.uuid4())
    for _ in range(2):  # the first answer and its replay
        r = register(api, UNREGISTERED, api.last_code(UNREGISTERED), message_id=mid)
        assert (r.status_code, r.headers["Cache-Control"]) == (200, "no-store"), r.text
    reads = api.as_user("alice", "/device/query_by_user", {})
    assert "Cache-Control" not in reads.headers  # answers without a secret: as before


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/redoc"])
def test_the_document_is_served_only_when_asked(api: Api, path: str) -> None:
    r = api.client.get(path)
    assert r.status_code == 404, r.text
    with TestClient(create_app(api.world.db, docs=True)) as documented:
        assert documented.get(path).status_code == 200


def test_a_token_is_good_only_with_its_own_clients_id(api: Api) -> None:
    conn = connect(api.world.db)
    with transaction(conn):
        tokens_store.insert_client(
            conn,
            client_id="other-client",
            secret_hash=security.sha256_hex("other-client-secret"),
            name="other",
            now=api.clock.now_ms(),
        )
    conn.close()
    r = api.as_user("alice", "/product/query_category", {"client_id": "other-client"})
    assert r.status_code == 403, r.text
    assert r.json()["error_msg"] == (
        "params.client_id: the access token was issued to another client"
    )
    mine = api.as_user("alice", "/product/query_category", {"client_id": api.world.client_id})
    assert mine.status_code == 200
    assert login_password(api, api.world["bob"].phone, api.world["bob"].password).status_code == 200
