"""Another user's object answers exactly like a nonexistent one; fields a caller may not set.

Every operation that takes a device_id, user_id, phone or identity_id is called by bob once
with alice's object and once with an id that does not exist, with the same message_id: the
two answers must be byte-identical (status and body). The pre-login operations that take a
phone are covered by ``test_enumeration.py``. Two documented exceptions are checked for what
they do reveal: ``/device/bind`` of a new device_id creates it (an existing one needs its
secret first, and a wrong secret is the same 422 for anyone's device), and
``/user/update_user_info`` with an identity_id taken by another user is a 409 (identity_ids
are unique).
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from server.helpers import Api, dump

NONE = {"device_id": "dev-none", "user_id": "u-none", "phone": "5550999999", "identity": "nobody"}
WINDOW = {"start": 0, "end": 2**42}

# (path, params with alice's object, params with a nonexistent one, expected status)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], int]] = [
    ("/device/query", {"device_id": "dev-a1"}, {"device_id": "dev-none"}, 404),
    (
        "/device/query",
        {"device_id": "dev-b1", "user_id": "u-alice"},
        {"device_id": "dev-b1", "user_id": "u-none"},
        403,
    ),
    (
        "/device/update_info",
        {"device_id": "dev-a1", "group_id": 1},
        {"device_id": "dev-none", "group_id": 1},
        404,
    ),
    (
        "/device/update_info",
        {"device_id": "dev-b1", "user_id": "u-alice"},
        {"device_id": "dev-b1", "user_id": "u-none"},
        403,
    ),
    (
        "/device/update_info",
        {"device_id": "dev-a1", "user_id": "u-alice"},
        {"device_id": "dev-none", "user_id": "u-none"},
        403,
    ),
    ("/device/query_by_user", {"user_id": "u-alice"}, {"user_id": "u-none"}, 404),
    (
        "/device/query_record",
        {"query_model": 1, "device_id": "dev-a1", **WINDOW},
        {"query_model": 1, "device_id": "dev-none", **WINDOW},
        404,
    ),
    (
        "/device/query_record",
        {"query_model": 2, "user_id_param": "u-alice", **WINDOW},
        {"query_model": 2, "user_id_param": "u-none", **WINDOW},
        404,
    ),
    (
        "/device/query_record",
        {"query_model": 1, "device_id": "dev-b1", "user_id": "u-alice", **WINDOW},
        {"query_model": 1, "device_id": "dev-b1", "user_id": "u-none", **WINDOW},
        403,
    ),
    (
        "/user/query",
        {"query_model": 1, "user_id": "u-alice"},
        {"query_model": 1, "user_id": "u-none"},
        404,
    ),
    (
        "/user/query",
        {"query_model": 2, "area_code": "1", "phone": "5550000003"},
        {"query_model": 2, "area_code": "1", "phone": "5550999999"},
        404,
    ),
    (
        "/user/query",
        {"query_model": 3, "identity_id": "alice.id"},
        {"query_model": 3, "identity_id": "nobody"},
        404,
    ),
    (
        "/user/update_pwd",
        {
            "update_model": 1,
            "old_password": "bob-password-1",
            "new_password": "bob-password-2",
            "phone": "5550000003",
        },
        {
            "update_model": 1,
            "old_password": "bob-password-1",
            "new_password": "bob-password-2",
            "phone": "5550999999",
        },
        403,
    ),
    (
        "/device/bind",  # an existing device needs its secret before anything else
        {"device_id": "dev-a1", "device_secret": "wrong-secret", "product_id": "p-lamp"},
        {"device_id": "dev-free", "device_secret": "wrong-secret", "product_id": "p-lamp"},
        422,
    ),
]


@pytest.fixture
def alice_identity(api: Api) -> None:
    r = api.as_user("alice", "/user/update_user_info", {"identity_id": "alice.id"})
    assert r.status_code == 200


@pytest.mark.usefixtures("alice_identity")
@pytest.mark.parametrize(
    ("path", "theirs", "missing", "status"),
    CASES,
    ids=[f"{c[0]}-{'-'.join(sorted(c[1]))}" for c in CASES],
)
def test_another_users_object_is_like_a_missing_one(
    api: Api, path: str, theirs: dict[str, Any], missing: dict[str, Any], status: int
) -> None:
    api.token("bob")
    before = dump(api.world.db)
    message_id = str(uuid.uuid4())
    a = api.as_user("bob", path, theirs, message_id=message_id)
    b = api.as_user("bob", path, missing, message_id=message_id)
    assert a.status_code == status, a.text
    assert (a.status_code, a.content) == (b.status_code, b.content)
    assert dump(api.world.db) == before
    # and the owner (or ops) does see it: the object is really there
    viewer = "ops" if path in ("/user/query", "/device/query_record") else "alice"
    if status == 404:
        assert api.as_user(viewer, path, theirs).status_code == 200


def test_a_device_report_for_someone_elses_device_is_like_a_missing_device(api: Api) -> None:
    before = dump(api.world.db)
    message_id = str(uuid.uuid4())
    answers = [
        api.client.post(
            "/device/report",
            json={
                "message_id": message_id,
                "device_id": device_id,
                "device_secret": "not-the-secret",
                "events": [{"event_type": 1}],
            },
        )
        for device_id in ("dev-a1", "dev-none")
    ]
    assert answers[0].status_code == 401
    assert (answers[0].status_code, answers[0].content) == (
        answers[1].status_code,
        answers[1].content,
    )
    assert dump(api.world.db) == before


def test_identity_ids_are_unique_the_one_thing_update_user_info_reveals(api: Api) -> None:
    assert (
        api.as_user("alice", "/user/update_user_info", {"identity_id": "alice.id"}).status_code
        == 200
    )
    r = api.as_user("bob", "/user/update_user_info", {"identity_id": "alice.id"})
    assert r.status_code == 409
    assert r.json()["error_msg"] == "params.identity_id: already taken by another user"
    assert "u-alice" not in r.text


BIND = {"device_secret": "device-secret-1", "product_id": "p-lamp"}
FORBIDDEN: list[tuple[str, str, dict[str, Any], int, str]] = [
    # bind: only the platform sets status; sharing and other owners are not offered
    ("bob", "/device/bind", {"device_id": "dev-free", **BIND, "status": 1}, 403, "params.status"),
    ("bob", "/device/bind", {"device_id": "dev-new", **BIND, "status": 3}, 403, "params.status"),
    ("bob", "/device/bind", {"device_id": "dev-free", **BIND, "owned": 0}, 403, "params.owned"),
    (
        "bob",
        "/device/bind",
        {"device_id": "dev-free", **BIND, "user_id": "u-alice"},
        400,
        "params.user_id: unknown field",
    ),
    # a device bound to someone else: 409, whatever the caller sends along
    ("bob", "/device/bind", {"device_id": "dev-a1", **BIND}, 409, "params.device_id"),
    (
        "bob",
        "/device/bind",
        {"device_id": "dev-a1", **BIND, "group_id": 9},
        409,
        "params.device_id",
    ),
    # update_info: the caller's own binding only; no status; transfer is admin-only
    (
        "bob",
        "/device/update_info",
        {"device_id": "dev-b1", "status": 1},
        400,
        "params.status: unknown field",
    ),
    (
        "bob",
        "/device/update_info",
        {"device_id": "dev-b1", "user_id": "u-alice"},
        403,
        "params.user_id",
    ),
    ("bob", "/device/update_info", {"device_id": "dev-b1", "owned": 0}, 403, "params.owned"),
    (
        "ops",
        "/device/update_info",
        {"device_id": "dev-b1", "user_id": "u-ops"},
        403,
        "params.user_id",
    ),
    (
        "alice",
        "/device/update_info",
        {"device_id": "dev-a1", "user_id": "u-bob", "owned": 1},
        403,
        "params.user_id",
    ),
    (
        "admin",
        "/device/update_info",
        {"device_id": "dev-a1", "user_id": "u-bob", "owned": 0},
        403,
        "params.owned",
    ),
]


@pytest.mark.parametrize(
    ("caller", "path", "params", "status", "message"),
    FORBIDDEN,
    ids=[f"{c[1]}-{c[0]}-{c[4]}" for c in FORBIDDEN],
)
def test_fields_the_caller_may_not_set(
    api: Api, caller: str, path: str, params: dict[str, Any], status: int, message: str
) -> None:
    api.token(caller)
    before = dump(api.world.db)
    r = api.as_user(caller, path, params)
    assert r.status_code == status, r.text
    assert r.json()["error_msg"].startswith(message)
    assert dump(api.world.db) == before


def test_the_envelope_user_id_cannot_name_another_user(api: Api) -> None:
    api.token("bob")
    before = dump(api.world.db)
    for path, params in (
        (
            "/device/bind",
            {"device_id": "dev-new", "device_secret": "s" * 8, "product_id": "p-lamp"},
        ),
        ("/user/update_user_info", {"nick_name": "mallory"}),
        ("/device/update_info", {"device_id": "dev-a1", "group_id": 1}),
    ):
        r = api.post(path, params, token=api.token("bob"), user_id="u-alice")
        assert r.status_code == 403
        assert r.json()["error_msg"].startswith("user_id:")
    assert dump(api.world.db) == before
