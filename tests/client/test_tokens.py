"""Tokens on the real platform: expiry mid-read, refresh, re-login, one refresh at a time,
the token cache, and secrets kept out of reprs, logs and messages.

Expiry runs on fake clocks, the platform's (``opslib.server.FakeClock``) and the client's
(``Client(clock=...)``), moved forward by the tests instead of waited for.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import opslib
from client.clocks import Clocks
from client.faults import Faults

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def refreshes(faults: Faults) -> int:
    return sum(1 for s in faults.to("/token/access") if s.form.get("grant_type") == "refresh_token")


def on_clock(platform: ServedPlatform, clocks: Clocks, faults: Faults, role: str = "ops") -> Any:
    """A client of ``platform`` whose tokens expire on ``clocks.client``, logged in."""
    creds = platform.credentials(role)
    client = opslib.Client(
        platform.base_url,
        client_id=creds["client_id"],
        client_secret=creds["client_secret"],
        transport=faults,
        clock=clocks.client_seconds,
        dialect=platform.dialect,
    )
    client.auth.login(creds["area_code"], creds["phone"], password=creds["password"])
    return client


def test_login_exchanges_the_code_and_knows_the_user(platform: ServedPlatform) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    assert faults.paths()[:2] == ["/user/login", "/token/access"]
    assert faults.to("/token/access")[0].form["grant_type"] == "authorization_code"
    assert client.user_id
    assert client.users.get()["phone"].item() == platform.ops_phone


def test_token_op_parameters_travel_in_the_query_string(
    platform: ServedPlatform, caplog: pytest.LogCaptureFixture
) -> None:
    # Spec §4.2 and §5.3: query parameters. A platform reading only the query string
    # (opslib server --dialect vendor) refused the form body the client used to send.
    faults = Faults()
    caplog.set_level(logging.DEBUG, logger="opslib")
    platform.connect(transport=faults)
    exchange = faults.to("/token/access")[0]
    assert exchange.query["client_secret"] == platform.client_secret
    assert exchange.query["grant_type"] == "authorization_code"
    # every exchange is logged at DEBUG by its path: the query never shows
    lines = [r.getMessage() for r in caplog.records if "/token/access" in r.getMessage()]
    assert lines
    assert not [line for line in lines if platform.client_secret in line or "?" in line]


def test_token_op_parameters_in_a_form_body_when_the_dialect_says(platform: ServedPlatform) -> None:
    faults = Faults()
    dialect = opslib.Dialect().replace(token={"params": "form"})
    client = platform.connect(transport=faults, dialect=dialect)
    exchange = faults.to("/token/access")[0]
    assert not exchange.query
    assert exchange.form["client_secret"] == platform.client_secret
    assert client.user_id


def test_a_token_expiring_mid_read_is_refreshed_and_the_read_completes(
    platform_factory: Callable[..., ServedPlatform], clocks: Clocks
) -> None:
    short = platform_factory(access_token_ttl_s=2)
    faults = Faults()
    client = on_clock(short, clocks, faults)
    pages = client.events.iter_pages("-30d", page_size=100)
    first = next(pages)
    clocks.advance(2.2)  # the access token is now expired, on the platform too
    rest = list(pages)
    assert len(first) + sum(len(p) for p in rest) == first.attrs["total"]
    assert refreshes(faults) >= 1
    assert all(s.fault == "" for s in faults.sent)


def test_a_401_triggers_one_refresh_and_one_retry(
    platform_factory: Callable[..., ServedPlatform], clocks: Clocks
) -> None:
    hour = platform_factory(access_token_ttl_s=3600)
    faults = Faults()
    client = on_clock(hour, clocks, faults)
    # the client believes its token is good for the hour; the platform's clock knows better
    clocks.platform.advance(seconds=3601)
    assert len(client.users.get()) == 1
    assert refreshes(faults) == 1
    assert faults.count("/user/query") == 2


def test_a_refused_refresh_token_falls_back_to_a_login(
    platform_factory: Callable[..., ServedPlatform], clocks: Clocks
) -> None:
    short = platform_factory(access_token_ttl_s=1, refresh_token_ttl_s=1)
    faults = Faults()
    client = on_clock(short, clocks, faults)
    user_id = client.user_id
    clocks.advance(1.5)  # access and refresh tokens both expired
    assert len(client.devices.list(limit=5)) == 5
    assert faults.count("/user/login") == 2
    assert refreshes(faults) >= 1
    assert client.user_id == user_id


def test_a_refused_refresh_without_a_password_raises(
    platform_factory: Callable[..., ServedPlatform], clocks: Clocks
) -> None:
    short = platform_factory(refresh_token_ttl_s=60, sms_min_interval_ms=0)
    faults = Faults()
    client = on_clock(short, clocks, faults, role="user")
    client.auth.send_code(short.area_code, short.user_phone, code_model="login")
    code = short.last_code(short.user_phone)
    client.auth.login(short.area_code, short.user_phone, code=code)  # no password known now
    client.auth.refresh()
    refresh_token = faults.to("/token/access")[-1].form["refresh_token"]
    clocks.advance(61)  # the refresh token has expired
    with pytest.raises(opslib.APIError) as info:
        client.auth.refresh()
    assert info.value.error == "invalid_grant"
    assert faults.count("/user/login") == 2  # the password login and the SMS one, no more
    assert refresh_token not in str(info.value)


def test_threads_hitting_expiry_cause_a_single_refresh(
    platform_factory: Callable[..., ServedPlatform], clocks: Clocks
) -> None:
    faults = Faults()
    client = on_clock(platform_factory(access_token_ttl_s=3600), clocks, faults)
    clocks.client.advance(seconds=3600)  # expiring now, as the client sees it
    barrier = threading.Barrier(8)
    failures: list[BaseException] = []

    def work() -> None:
        try:
            barrier.wait()
            client.users.get()
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert refreshes(faults) == 1
    assert faults.count("/user/query") == 8


def test_concurrent_pages_after_expiry_refresh_once(
    platform_factory: Callable[..., ServedPlatform], clocks: Clocks
) -> None:
    short = platform_factory(access_token_ttl_s=3)
    faults = Faults()
    client = on_clock(short, clocks, faults)
    clocks.advance(3.1)
    df = client.events.list("-30d", page_size=20)  # many pages, fetched 4 at a time
    assert len(df) == df.attrs["total"]
    assert refreshes(faults) == 1


def test_token_cache_is_private_and_reused(platform: ServedPlatform, tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "tokens.json"
    first = Faults()
    client = platform.connect(transport=first, token_cache=cache)
    assert first.count("/user/login") == 1
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o600
    doc = json.loads(cache.read_text())
    key = f"{platform.base_url}|{platform.client_id}|{platform.area_code}-{platform.ops_phone}"
    assert set(doc) == {key}
    assert doc[key]["openid"] == client.user_id
    second = Faults()
    again = platform.connect(transport=second, token_cache=cache)
    assert second.count("/user/login") == 0
    assert again.user_id == client.user_id
    assert len(again.users.get()) == 1


def test_token_cache_from_the_environment(
    platform: ServedPlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPSLIB_TOKEN_CACHE", "true")
    platform.connect()
    default = Path(os.environ["XDG_CACHE_HOME"]) / "opslib" / "tokens.json"
    assert default.exists()


def test_a_stale_cached_token_is_refreshed_or_replaced(
    platform: ServedPlatform, tmp_path: Path
) -> None:
    cache = tmp_path / "tokens.json"
    platform.connect(token_cache=cache)
    doc = json.loads(cache.read_text())
    for entry in doc.values():
        entry["access_token"] = "revoked"
        entry["refresh_token"] = "revoked"
        entry["expires_at"] = time.time() - 10
    cache.write_text(json.dumps(doc))
    faults = Faults()
    client = platform.connect(transport=faults, token_cache=cache)
    assert faults.count("/user/login") == 1  # the refresh failed, the password logged in
    assert len(client.users.get()) == 1
    assert "revoked" not in cache.read_text()


def test_a_broken_cache_file_is_ignored(platform: ServedPlatform, tmp_path: Path) -> None:
    cache = tmp_path / "tokens.json"
    cache.write_text("{not json")
    client = platform.connect(token_cache=cache)
    assert len(client.users.get()) == 1


def test_a_cache_that_cannot_be_written_is_one_warning_and_the_reads_go_on(
    platform: ServedPlatform, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    cache = a_file / "tokens.json"  # under a file: never writable
    client = platform.connect(token_cache=cache)
    assert len(client.devices.list()) > 0
    client._session.tokens.refresh()
    assert len(client.devices.list()) > 0
    said = [r.getMessage() for r in caplog.records if "token cache" in r.getMessage()]
    assert len(said) == 1, said  # once, not at every write
    assert said[0].startswith(f"could not write the token cache {cache} (")
    assert said[0].endswith("); the tokens stay in memory")


def test_no_password_and_no_cache_starts_logged_out(platform: ServedPlatform) -> None:
    client = opslib.connect(
        platform.base_url,
        client_id=platform.client_id,
        client_secret=platform.client_secret,
        area_code=platform.area_code,
        phone=platform.user_phone,
    )
    assert client.user_id is None
    with pytest.raises(opslib.AuthenticationError, match="not logged in"):
        client.users.get()
    client.auth.login(password=platform.user_password)
    assert client.users.get()["phone"].item() == platform.user_phone


def test_secrets_never_show(
    platform: ServedPlatform, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    faults = Faults()
    client = platform.connect(transport=faults, token_cache=tmp_path / "t.json")
    client.auth.refresh()
    client.devices.list(limit=3)
    with pytest.raises(opslib.VerificationFailed) as wrong:
        platform.connect(password="wrong-password-123")
    tokens = client._session.tokens.tokens
    assert tokens is not None
    assert tokens.refresh_token is not None
    secrets = [
        platform.ops_password,
        platform.client_secret,
        "wrong-password-123",
        tokens.access_token.get_secret_value(),
        tokens.refresh_token.get_secret_value(),
    ]
    exchange_code = faults.to("/token/access")[0].form["code"]
    secrets.append(exchange_code)
    shown = " ".join(
        [
            caplog.text,
            repr(client),
            repr(client._session.tokens),
            repr(client._session),
            str(wrong.value),
            repr(wrong.value),
            repr(tokens),
            repr(client.auth),
            repr(client.devices),
        ]
    )
    for secret in secrets:
        assert secret not in shown
    frames = [client.auth.refresh(), client.auth.login(password=platform.ops_password)]
    for frame in frames:
        text = frame.to_csv()
        for secret in secrets:
            assert secret not in text
        assert not any("token" in c and "expires" not in c for c in frame.columns if c != "openid")
