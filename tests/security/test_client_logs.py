"""The client's whole account life with every logger at DEBUG: no secret in any log line.

httpx logs each request URL at INFO, and the transport under it its connection steps at
DEBUG (opslib's ``opslib.transport``, or httpcore when httpx's own transport is used behind
a proxy), so a user who turns logging on must not find client secrets, codes or tokens
there:
the client sends ``/token/access`` parameters in a form body, never in the URL. The
platform runs in this process (a thread), so its log lines are captured and checked too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import httpx
import pytest
from client.faults import Faults

import opslib

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

PHONE = "5559876001"
PASSWORDS = ("client-pass-one", "client-pass-two", "client-pass-three", "wrong-client-pass")


def test_a_full_client_flow_logs_no_secret(
    platform_factory: Callable[..., ServedPlatform], caplog: pytest.LogCaptureFixture
) -> None:
    platform = platform_factory(sms_min_interval_ms=0)  # three codes to one phone, at once
    caplog.set_level(logging.DEBUG)  # the root logger: opslib, httpx, httpcore, the server
    for name in ("httpx", "httpcore", "opslib", "opslib.server"):
        assert logging.getLogger(name).getEffectiveLevel() == logging.DEBUG
    first, second, third, wrong = PASSWORDS
    area = platform.area_code
    faults = Faults(httpx.HTTPTransport())
    client = opslib.connect(
        platform.base_url,
        client_id=platform.client_id,
        client_secret=platform.client_secret,
        transport=faults,
    )
    client.auth.send_code(area, PHONE, code_model="register")
    register_code = platform.last_code(PHONE)
    client.auth.register(area, PHONE, first, register_code, login=True)
    client.auth.refresh()
    client.users.get()
    client.auth.login(area, PHONE, password=first)
    client.auth.send_code(area, PHONE, code_model="login")
    login_code = platform.last_code(PHONE)
    client.auth.login(area, PHONE, code=login_code)
    client.auth.login(area, PHONE, password=first)
    client.auth.change_password(first, second)
    client.auth.send_code(area, PHONE, code_model="reset password")
    reset_code = platform.last_code(PHONE)
    client.auth.reset_password(area, PHONE, reset_code, third)
    client.auth.login(area, PHONE, password=third)
    client.auth.refresh()
    client.devices.list(limit=3)
    with pytest.raises(opslib.VerificationFailed):
        client.auth.login(area, PHONE, password=wrong)

    secrets = [platform.client_secret, *PASSWORDS, register_code, login_code, reset_code]
    for sent in faults.to("/token/access"):
        secrets += [sent.form[k] for k in ("code", "refresh_token") if k in sent.form]
    tokens = client._session.tokens.tokens
    assert tokens is not None
    secrets += [tokens.access_token.get_secret_value(), tokens.refresh_token.get_secret_value()]  # type: ignore[union-attr]
    for sent in faults.sent:
        token = ((sent.body or {}).get("params") or {}).get("access_token")
        if token:
            secrets.append(token)
    assert len(set(secrets)) > 10

    records = caplog.records
    names = {r.name for r in records}
    assert "opslib" in names, names
    assert any(n.startswith("httpcore") for n in names), names
    assert any(r.name.startswith("opslib.server") for r in records)
    token_lines = [r.getMessage() for r in records if "/token/access" in r.getMessage()]
    assert any(r.name == "opslib" for r in records if "/token/access" in r.getMessage())
    assert all("?" not in line.split("/token/access", 1)[1][:2] for line in token_lines)
    # every field of every record but the logging module's own clocks and thread and process
    # ids: a 6-digit SMS code turned up inside relativeCreated (5359.5991134643555)
    stamps = {"created", "msecs", "relativeCreated", "thread", "process"}
    text = "\n".join(
        f"{r.name} {r.getMessage()} {r.args!r} {r.exc_text or ''} "
        f"{ {k: v for k, v in r.__dict__.items() if k not in stamps}!r}"
        for r in records
    )
    text += caplog.text
    for secret in secrets:
        assert secret not in text
