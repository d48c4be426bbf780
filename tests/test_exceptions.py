"""The exception tree: one class per error_code, chosen in one function."""

from __future__ import annotations

import pickle

import pytest

import opslib
from opslib import exceptions
from opslib.exceptions import make_status_error


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (400, opslib.BadRequest),
        (401, opslib.AuthenticationError),
        (403, opslib.PermissionDenied),
        (404, opslib.NotFound),
        (409, opslib.Conflict),
        (413, opslib.PayloadTooLarge),
        (422, opslib.VerificationFailed),
        (429, opslib.RateLimited),
        (500, opslib.ServerError),
        (503, opslib.ServerError),
        (502, opslib.ServerError),
    ],
)
def test_make_status_error_picks_the_class(code: int, cls: type[opslib.APIError]) -> None:
    err = make_status_error(code, "params.x: bad", message_id="m-1", operation="/device/query")
    assert type(err) is cls
    assert isinstance(err, opslib.APIError)
    assert err.code == code
    assert err.error_msg == "params.x: bad"
    assert err.message_id == "m-1"
    assert err.operation == "/device/query"
    assert "/device/query" in str(err)
    assert "params.x: bad" in str(err)


def test_unknown_4xx_is_a_plain_api_error() -> None:
    err = make_status_error(418, "teapot")
    assert type(err) is opslib.APIError


def test_rate_limited_carries_retry_after() -> None:
    err = make_status_error(429, "slow down", retry_after=3.0)
    assert isinstance(err, opslib.RateLimited)
    assert err.retry_after == 3.0


def test_token_errors_carry_the_oauth_error() -> None:
    err = make_status_error(
        400, "refresh token revoked", operation="/token/access", error="invalid_grant"
    )
    assert isinstance(err, opslib.BadRequest)
    assert err.error == "invalid_grant"
    assert "[invalid_grant]" in str(err)


def test_api_errors_pickle() -> None:
    err = make_status_error(429, "slow down", message_id="m", operation="/x", retry_after=2.0)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is opslib.RateLimited
    assert (back.code, back.error_msg, back.message_id, back.retry_after) == (
        429,
        "slow down",
        "m",
        2.0,
    )
    assert str(back) == str(err) == "/x: 429 slow down (message_id m)"  # a worker's, whole


def test_request_timeout_is_also_a_builtin_timeout() -> None:
    err = opslib.RequestTimeout("read timed out", operation="/x", sent=True)
    assert isinstance(err, TimeoutError)
    assert isinstance(err, opslib.TransportError)
    assert isinstance(err, opslib.OpsError)


def test_tree_is_drawn_in_the_module_docstring() -> None:
    doc = exceptions.__doc__ or ""
    for name in exceptions.__all__:
        if name[0].isupper():
            assert name in doc, name
