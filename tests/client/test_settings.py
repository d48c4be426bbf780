"""Settings resolution (arguments > environment > profile) and the Secret type."""

from __future__ import annotations

import logging
import os
import pickle
import re
from pathlib import Path

import pytest

import opslib
from opslib.client._settings import Secret, config_path, default_token_cache, resolve_settings
from opslib.dialects import Dialect
from opslib.exceptions import ConfigError

PROFILE = """
default_profile = "staging"

[profiles.staging]
base_url = "https://staging.example.com/"
client_id = "stage-client"
client_secret = "stage-secret"
area_code = "44"
phone = "7700900000"
password = "stage-password"

[profiles.prod]
base_url = "https://ops.example.com"
client_id = "prod-client"
client_secret = "prod-secret"
token_cache = true
"""


@pytest.fixture
def config_file() -> Path:
    path = Path(os.environ["OPSLIB_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PROFILE, encoding="utf-8")
    return path


# -- Secret ----------------------------------------------------------------------------


def test_secret_masks_itself_everywhere(caplog: pytest.LogCaptureFixture) -> None:
    s = Secret("hunter2-hunter2")
    assert "hunter2" not in repr(s)
    assert "hunter2" not in str(s)
    assert "hunter2" not in f"{s}"
    assert "hunter2" not in repr([s, {"password": s}])
    with caplog.at_level(logging.DEBUG, logger="opslib"):
        logging.getLogger("opslib").debug("password=%s %r", s, s)
    assert "hunter2" not in caplog.text
    assert s.get_secret_value() == "hunter2-hunter2"


def test_secret_equality_and_wrapping() -> None:
    assert Secret("a") == Secret("a")
    assert Secret("a") != Secret("b")
    assert Secret("a") != "a"
    assert Secret(Secret("a")).get_secret_value() == "a"
    assert not Secret("")
    with pytest.raises(TypeError):
        Secret(123)  # type: ignore[arg-type]


def test_secret_is_exported() -> None:
    assert opslib.Secret is Secret


def test_settings_repr_has_no_secret() -> None:
    settings = resolve_settings(
        base_url="http://x",
        client_id="c",
        client_secret="client-secret-value",
        area_code="1",
        phone="555",
        password="password-value",
    )
    text = repr(settings)
    assert "client-secret-value" not in text
    assert "password-value" not in text
    assert "password-value" not in repr(pickle.loads(pickle.dumps(settings)))


# -- resolution ------------------------------------------------------------------------


def test_nothing_configured_means_embedded() -> None:
    settings = resolve_settings()
    assert settings.embedded
    assert settings.base_url is None
    assert settings.token_cache is None


def test_config_path_defaults_to_the_xdg_config_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPSLIB_CONFIG")
    expected = Path(os.environ["XDG_CONFIG_HOME"]) / "opslib" / "config.toml"
    assert config_path() == expected


def test_default_profile_from_the_file(config_file: Path) -> None:
    settings = resolve_settings()
    assert settings.profile == "staging"
    assert settings.base_url == "https://staging.example.com"  # trailing slash dropped
    assert settings.client_id == "stage-client"
    assert settings.client_secret == Secret("stage-secret")
    assert (settings.area_code, settings.phone) == ("44", "7700900000")
    assert settings.password == Secret("stage-password")


def test_profile_argument_and_env(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_settings(profile="prod").base_url == "https://ops.example.com"
    monkeypatch.setenv("OPSLIB_PROFILE", "prod")
    settings = resolve_settings()
    assert settings.profile == "prod"
    assert settings.token_cache == default_token_cache()
    # the argument beats the environment
    assert resolve_settings(profile="staging").profile == "staging"


def test_environment_beats_the_profile_and_arguments_beat_both(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPSLIB_BASE_URL", "https://env.example.com")
    monkeypatch.setenv("OPSLIB_PHONE", "123456")
    settings = resolve_settings()
    assert settings.base_url == "https://env.example.com"
    assert settings.phone == "123456"
    assert settings.client_id == "stage-client"  # still from the profile
    settings = resolve_settings(base_url="https://arg.example.com", phone="999999")
    assert settings.base_url == "https://arg.example.com"
    assert settings.phone == "999999"


def test_every_env_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env = {
        "OPSLIB_BASE_URL": "https://e.example.com",
        "OPSLIB_CLIENT_ID": "cid",
        "OPSLIB_CLIENT_SECRET": "csecret",
        "OPSLIB_AREA_CODE": "1",
        "OPSLIB_PHONE": "5550001",
        "OPSLIB_PASSWORD": "pw-pw-pw-pw",
        "OPSLIB_TOKEN_CACHE": str(tmp_path / "tok.json"),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = resolve_settings()
    assert s.base_url == "https://e.example.com"
    assert s.client_id == "cid"
    assert s.client_secret == Secret("csecret")
    assert (s.area_code, s.phone) == ("1", "5550001")
    assert s.password == Secret("pw-pw-pw-pw")
    assert s.token_cache == tmp_path / "tok.json"


def test_unknown_profile_names_the_known_ones(config_file: Path) -> None:
    with pytest.raises(opslib.ConfigError, match=r"no \[profiles.nope\].*prod, staging"):
        resolve_settings(profile="nope")


def test_profile_without_a_file() -> None:
    with pytest.raises(opslib.ConfigError, match="no config file"):
        resolve_settings(profile="prod")


def test_unknown_keys_in_a_profile_fail(config_file: Path) -> None:
    config_file.write_text('[profiles.x]\nbase_url = "http://a"\nbaseurl = "typo"\n')
    with pytest.raises(opslib.ConfigError, match="baseurl"):
        resolve_settings(profile="x")


def test_broken_toml_fails_with_the_path(config_file: Path) -> None:
    config_file.write_text("[profiles.x\n")
    with pytest.raises(opslib.ConfigError, match=str(config_file)):
        resolve_settings()


@pytest.mark.parametrize("url", ["ops.example.com", "ftp://ops.example.com", "127.0.0.1:8000"])
def test_a_base_url_that_is_not_http_is_refused_naming_it(url: str) -> None:
    with pytest.raises(
        ConfigError,
        match=rf"^base_url '{re.escape(url)}' is not a platform's address; give an http:// or "
        r"https:// URL",
    ):
        resolve_settings(base_url=url, client_id="c", client_secret="s")
    assert resolve_settings(base_url="HTTPS://ops.example.com/", client_id="c", client_secret="s")


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), float("inf"), True, "30"])
def test_a_timeout_that_is_not_seconds_is_refused_naming_it(seconds: object) -> None:
    with pytest.raises(ValueError, match=r"^timeout must be seconds above zero, an httpx"):
        opslib.connect(
            base_url="http://127.0.0.1:9", client_id="c", client_secret="s",
            timeout=seconds,  # type: ignore[arg-type]
        )  # fmt: skip


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ({"max_retries": -1}, r"^max_retries must be a whole number, 0 or more, got -1$"),
        ({"max_retries": "3"}, r"^max_retries must be a whole number, 0 or more, got '3'$"),
        ({"transport": "http"}, r"^transport must be an httpx.BaseTransport .* got 'http'$"),
    ],
)
def test_retries_and_a_transport_of_the_wrong_kind_are_refused_naming_them(
    option: dict[str, object], said: str
) -> None:
    with pytest.raises((ValueError, TypeError), match=said):
        opslib.connect(base_url="http://127.0.0.1:9", client_id="c", client_secret="s", **option)  # type: ignore[arg-type]


def test_base_url_needs_client_credentials() -> None:
    with pytest.raises(opslib.ConfigError, match="client_id"):
        resolve_settings(base_url="https://x.example.com")
    with pytest.raises(opslib.ConfigError, match="client_secret"):
        resolve_settings(base_url="https://x.example.com", client_id="c")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), (False, None), ("off", None), (True, "default"), ("yes", "default")],
)
def test_token_cache_values(value: object, expected: str | None) -> None:
    settings = resolve_settings(token_cache=value)  # type: ignore[arg-type]
    want = default_token_cache() if expected == "default" else None
    assert settings.token_cache == want


def test_default_token_cache_is_in_the_xdg_cache_dir() -> None:
    assert default_token_cache() == Path(os.environ["XDG_CACHE_HOME"]) / "opslib" / "tokens.json"


def test_the_dialect_from_argument_environment_and_profile(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file.write_text(
        "[profiles.named]\n"
        'base_url = "http://a"\nclient_id = "c"\nclient_secret = "s"\n'
        'dialect = "vendor"\n'
        "[profiles.table]\n"
        'base_url = "http://a"\nclient_id = "c"\nclient_secret = "s"\n'
        "[profiles.table.dialect]\n"
        'base = "vendor"\n'
        "[profiles.table.dialect.paging]\n"
        "max_page_size = 50\n"
        "[profiles.bad.dialect.times]\n"
        'range_unit = "minutes"\n'
    )
    assert resolve_settings(profile="named").dialect == Dialect.named("vendor")
    table = resolve_settings(profile="table").dialect
    assert table is not None
    assert (table.paging.max_page_size, table.errors.signalling) == (50, "body")
    assert resolve_settings(profile="table", dialect="opslib").dialect == Dialect()
    with pytest.raises(ConfigError, match=r"times\.range_unit: 'minutes'.*profile 'bad'"):
        resolve_settings(profile="bad")
    monkeypatch.setenv("OPSLIB_DIALECT", "vendor-local")
    env = resolve_settings(profile="table").dialect
    assert env is not None
    assert env.name == "vendor-local"
    monkeypatch.setenv("OPSLIB_DIALECT", "nope")
    with pytest.raises(ConfigError, match="unknown dialect 'nope'"):
        resolve_settings()
