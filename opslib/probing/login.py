"""Step 1: the login and the token call.

The token call is tried with the spec's query string, else a form body (each after a fresh
login, a code being single-use); its answer says ``expires_in``'s unit and whether
``openid`` is the login answer's ``user_id``. A bogus refresh token shows what a refused
refresh looks like (asked with the errors, :mod:`opslib.probing.errors`).
"""

from __future__ import annotations

from typing import Any

from opslib.exceptions import OpsError, Unsupported
from opslib.probing.state import Probe, ours
from opslib.protocol import Codec
from opslib.protocol import operations as ops
from opslib.protocol.times import EXPIRES_MS_FROM

__all__ = ["LoginRefused", "login", "refused_refresh", "token_call"]

_USER_ID_FIELDS = ("user_id", "uid", "userId", "id")


class LoginRefused(OpsError):
    """The login failed under the base dialect's ``login_model``: another may fit."""


def login(probe: Probe) -> dict[str, Any]:
    """Log in with the password, as the base dialect writes ``login_model``; the answer's
    ``data`` (its code for the token call).

    Raises
    ------
    LoginRefused
        The platform refused it (or the base dialect has no password login).
    """
    params = {
        "login_model": ours("login_model", "password"),
        "area_code": probe.creds["area_code"],
        "phone": probe.creds["phone"],
        "password": probe.creds["password"],
    }
    try:
        answer = probe.call(ops.LOGIN, params)
    except (ValueError, Unsupported) as exc:
        raise LoginRefused(f"probe: cannot log in under {probe.base.name!r}: {exc}") from None
    data = answer.data
    if (answer.status != 200 and not data) or not data.get("code"):
        raise LoginRefused(
            f"probe: the login failed (HTTP {answer.status}, {answer.brief()}); check the "
            "credentials, or give base= a dialect whose login_model selector fits"
        )
    if isinstance(answer.code, int):
        probe.success_code = int(answer.code)
    probe.login_answer = answer
    return data


def token_call(probe: Probe) -> None:
    """Exchange a login's code, in the query string, else in a form body."""
    form = {
        "grant_type": "authorization_code",
        "client_id": probe.wire.client_id,
        "client_secret": probe.creds["client_secret"],
        "redirect_uri": "none",
    }
    tried: list[str] = []
    for in_query in (True, False):
        data = login(probe)
        if not tried:
            _user_field(probe, data)
        answer = probe.wire.token({**form, "code": str(data["code"])}, in_query=in_query)
        style = "query" if in_query else "form"
        tried.append(f"{style}: HTTP {answer.status}")
        fields = _reader(probe).errors.token_fields(answer.status, answer.body, as_sent=True)
        if fields is not None and fields.get("access_token"):
            probe.note(
                "token", "params", style, "high", f"the token call worked ({', '.join(tried)})"
            )
            _tokens(probe, fields)
            return
    raise OpsError(f"probe: the token call failed both ways ({'; '.join(tried)})")


def _reader(probe: Probe) -> Codec:
    """A codec that takes a token answer's success as the login answered it."""
    success = probe.base.errors.success_codes | {probe.success_code}
    return probe.codec(errors={"success_codes": success})


def _user_field(probe: Probe, data: dict[str, Any]) -> None:
    field_name = probe.base.token.user_id_field
    if data.get(field_name):
        probe.user_id = str(data[field_name])
        probe.note("token", "user_id_field", field_name, "high", "the login answer has it")
        return
    for candidate in _USER_ID_FIELDS:
        if data.get(candidate):
            probe.user_id = str(data[candidate])
            probe.note("token", "user_id_field", candidate, "medium", "found in data")
            return
    probe.note("token", "user_id_field", field_name, "low", "no user id in the login answer")


def _tokens(probe: Probe, fields: dict[str, Any]) -> None:
    probe.token = str(fields["access_token"])
    probe.refresh_token = str(fields.get("refresh_token") or "")
    openid = str(fields.get("openid") or "")
    if not probe.user_id:
        probe.user_id = openid
    same = openid == probe.user_id
    probe.seen(
        "token.openid",
        "the user_id" if same else "app-scoped",
        "high",
        "openid equals data.user_id"
        if same
        else f"openid {openid[:6]}... differs from data.user_id: the client sends "
        "data.user_id in every envelope",
    )
    expires = fields.get("expires_in")
    if isinstance(expires, int | float) and not isinstance(expires, bool):
        unit = "ms" if expires >= EXPIRES_MS_FROM else "s"
        probe.note("token", "expires_in_unit", unit, "medium", f"expires_in = {expires}")
    else:
        probe.note("token", "expires_in_unit", "s", "low", "no expires_in in the answer")


def refused_refresh(probe: Probe) -> None:
    """What a refused refresh looks like: a bogus refresh token, sent as the token call
    was learned to go."""
    form = {
        "grant_type": "refresh_token",
        "client_id": probe.wire.client_id,
        "client_secret": probe.creds["client_secret"],
        "refresh_token": "opslib-probe-bogus-refresh-token",
    }
    in_query = probe.changes.get("token", {}).get("params", "query") == "query"
    answer = probe.wire.token(form, in_query=in_query)
    if not isinstance(answer.body, dict):
        return
    if answer.body.get("error") == "invalid_grant":
        probe.seen(
            "errors.token_refused_codes",
            "invalid_grant",
            "high",
            "a bogus refresh token: OAuth error invalid_grant",
        )
        return
    code = answer.code
    if isinstance(code, int) and code != probe.success_code:
        probe.note(
            "errors",
            "token_refused_codes",
            frozenset({code}),
            "high",
            f"a bogus refresh token: HTTP {answer.status}, error_code {code}",
        )
