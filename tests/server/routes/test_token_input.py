"""Bad input to ``/token/access`` (routes/token.py): each parameter of each grant missing,
empty or too long, and a broken form, query or Authorization header. Each case gets the
OAuth error body with a description that names the field, and leaves the database as it was.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..helpers import Api, dump


def token_params(api: Api, grant: str) -> dict[str, str]:
    """Valid /token/access parameters of ``grant`` (the code or refresh token is made up:
    every case below fails before it is looked at)."""
    base = {
        "grant_type": grant,
        "client_id": api.world.client_id,
        "client_secret": api.world.client_secret,
    }
    if grant == "authorization_code":
        return {**base, "code": "c" * 43, "redirect_uri": "none"}
    return {**base, "refresh_token": "r" * 43}


TOKEN_FIELDS = {
    "authorization_code": ("grant_type", "client_id", "client_secret", "code", "redirect_uri"),
    "refresh_token": ("grant_type", "client_id", "client_secret", "refresh_token"),
}
TOKEN_LIMITS = {
    "client_id": 64,
    "client_secret": 256,
    "code": 256,
    "redirect_uri": 2048,
    "refresh_token": 256,
}


def token_cases() -> list[Any]:
    out: list[Any] = []
    for grant, fields in TOKEN_FIELDS.items():
        for name in fields:
            out.append(
                pytest.param(
                    grant, name, None, 400, f"{name}: required", id=f"{grant}-missing-{name}"
                )
            )
            out.append(
                pytest.param(grant, name, "", 400, f"{name}: required", id=f"{grant}-empty-{name}")
            )
            if name in TOKEN_LIMITS:
                long = "x" * (TOKEN_LIMITS[name] + 1)
                out.append(
                    pytest.param(
                        grant,
                        name,
                        long,
                        400,
                        f"{name}: must be at most",
                        id=f"{grant}-long-{name}",
                    )
                )
    out.append(
        pytest.param(
            "refresh_token", "grant_type", "password", 400, "grant_type:", id="unknown-grant"
        )
    )
    return out


@pytest.mark.parametrize(("grant", "name", "value", "status", "message"), token_cases())
def test_token_op_bad_params(
    api: Api, grant: str, name: str, value: str | None, status: int, message: str
) -> None:
    params = token_params(api, grant)
    if value is None:
        params.pop(name)
    else:
        params[name] = value
    before = dump(api.world.db)
    for send in (
        lambda: api.client.post("/token/access", params=params),  # the spec's way
        lambda: api.client.post("/token/access", data=params),  # a form body
    ):
        r = send()
        assert r.status_code == status, r.text
        body = r.json()
        assert set(body) == {"error_code", "error", "error_description"}
        assert body["error_code"] == status
        assert body["error"] in ("invalid_request", "unsupported_grant_type")
        assert body["error_description"].startswith(message), body
        assert r.headers["Cache-Control"] == "no-store"
    assert dump(api.world.db) == before


def test_token_op_envelope_errors(api: Api) -> None:
    before = dump(api.world.db)
    form = "application/x-www-form-urlencoded"
    good = token_params(api, "refresh_token")
    cases: list[tuple[dict[str, Any], int, str, str]] = [
        # a parameter twice, in the query and the form
        (
            {"params": {"grant_type": "refresh_token"}, "data": good},
            400,
            "invalid_request",
            "grant_type: given more than once",
        ),
        # malformed form body (not UTF-8)
        (
            {"content": b"grant_type=\xff", "headers": {"Content-Type": form}},
            400,
            "invalid_request",
            "body: form fields must be UTF-8",
        ),
        # a JSON body is not where the parameters go: they are missing
        ({"json": good}, 400, "invalid_request", "grant_type: required"),
        # a form body over 1 MiB
        (
            {"content": b"a=" + b"x" * (1024 * 1024), "headers": {"Content-Type": form}},
            413,
            "invalid_request",
            "body: larger than 1048576 bytes",
        ),
        # client_secret both as a parameter and through HTTP Basic
        (
            {"params": good, "headers": {"Authorization": "Basic b3BzbGliLWRlbW86eA=="}},
            400,
            "invalid_request",
            "client_secret: use either",
        ),
        (
            {"params": good, "headers": {"Authorization": "Basic !!"}},
            401,
            "invalid_client",
            "Authorization:",
        ),
    ]
    for kwargs, status, error, message in cases:
        r = api.client.post("/token/access", **kwargs)
        assert r.status_code == status, r.text
        body = r.json()
        assert (body["error_code"], body["error"]) == (status, error), body
        assert body["error_description"].startswith(message), body
    assert dump(api.world.db) == before
