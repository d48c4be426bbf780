"""connect(): arguments, environment, profile, and its errors, on the real platform."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import opslib

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def test_connect_with_arguments(platform: ServedPlatform) -> None:
    with platform.connect() as client:
        assert isinstance(client, opslib.Client)
        assert client.base_url == platform.base_url
        assert client.client_id == platform.client_id
        assert client.user_id
        assert (
            repr(client)
            == f"<opslib.Client base_url={platform.base_url!r} user_id={client.user_id!r}>"
        )


def test_connect_from_the_environment(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    creds = platform.credentials("user")
    monkeypatch.setenv("OPSLIB_BASE_URL", platform.base_url)
    for key, value in creds.items():
        monkeypatch.setenv(f"OPSLIB_{key.upper()}", value)
    client = opslib.connect()
    assert client.base_url == platform.base_url
    assert client.users.get()["phone"].item() == platform.user_phone


def test_connect_from_a_profile(platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch) -> None:
    config = Path(os.environ["OPSLIB_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'[profiles.local]\nbase_url = "{platform.base_url}"']
    lines += [f'{k} = "{v}"' for k, v in platform.credentials("admin").items()]
    config.write_text("\n".join(lines) + "\n")
    client = opslib.connect(profile="local")
    assert client.profile == "local"
    assert client.users.get()["phone"].item() == platform.admin_phone
    # the environment beats the profile, arguments beat both
    monkeypatch.setenv("OPSLIB_PROFILE", "local")
    monkeypatch.setenv("OPSLIB_PHONE", platform.user_phone)
    monkeypatch.setenv("OPSLIB_PASSWORD", platform.user_password)
    assert opslib.connect().users.get()["phone"].item() == platform.user_phone
    ops = opslib.connect(phone=platform.ops_phone, password=platform.ops_password)
    assert ops.users.get()["phone"].item() == platform.ops_phone


def test_phone_without_area_code_is_a_config_error(platform: ServedPlatform) -> None:
    with pytest.raises(opslib.ConfigError, match="area_code"):
        opslib.connect(platform.base_url, client_id="c", client_secret="s", phone="5550000001")


def test_wrong_client_secret(platform: ServedPlatform) -> None:
    with pytest.raises(opslib.AuthenticationError) as info:
        platform.connect(client_secret="not-the-secret")
    assert info.value.error == "invalid_client"
    assert "not-the-secret" not in str(info.value)
