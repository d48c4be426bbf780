"""HTTP-level answers: a wrong method, a missing access token (issue #24, items 8 and 9)."""

from __future__ import annotations

import pytest
from server.helpers import Api

from opslib.server.routes import ROUTES


@pytest.mark.parametrize("path", [r.path for r in ROUTES])
def test_a_405_says_which_method_is_allowed(api: Api, path: str) -> None:
    for method in ("GET", "PUT", "DELETE", "TRACE"):
        r = api.client.request(method, path)
        assert r.status_code == 405
        assert r.headers["Allow"] == "POST"  # RFC 9110 §15.5.6
        assert r.json()["error_code"] == 405


# update_pwd needs a token only with update_model 1 (tested on its own below).
AUTHENTICATED = [
    r.path for r in ROUTES if r.role.value in ("user", "ops", "admin") and not r.sometimes_pre
]


@pytest.mark.parametrize("path", AUTHENTICATED)
def test_a_request_without_an_access_token_is_a_401(api: Api, path: str) -> None:
    """protocol §3 and RFC 6750 §3.1: no credentials is 401 (it was 400 "required")."""
    user_id = api.world["alice"].user_id
    for params in ({}, {"access_token": None}):
        r = api.post(path, params, user_id=user_id)
        assert r.status_code == 401, r.text
        body = r.json()
        assert body["error_code"] == 401
        assert body["error_msg"] == "params.access_token: required"
        assert r.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_password_change_without_a_token_is_a_401_and_a_reset_needs_none(api: Api) -> None:
    change = {"update_model": 1, "old_password": "x" * 8, "new_password": "y" * 8}
    r = api.post("/user/update_pwd", change, user_id=api.world["alice"].user_id)
    assert r.status_code == 401, r.text
    reset = {"update_model": 2, "area_code": "1", "phone": "5550001", "new_password": "y" * 8}
    r = api.post("/user/update_pwd", reset)  # model 2 is pre-login: 400 for the missing code
    assert r.status_code == 400, r.text
    assert r.json()["error_msg"].startswith("params.auth_code: required")
