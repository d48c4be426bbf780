"""client.users on the real platform: profiles and settings, typed one-row frames."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import pandas as pd
import pytest

import opslib
from client.resources.dialected import empty, error_code
from opslib.client.frames import schema as S

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def assert_schema(df: pd.DataFrame, schema: S.FrameSchema, platform: ServedPlatform) -> None:
    assert list(df.columns) == list(schema.dtypes())
    assert df.dtypes.to_dict() == empty(schema, platform).dtypes.to_dict()


def test_get_the_caller(platform: ServedPlatform) -> None:
    user = platform.connect("user")
    df = user.users.get()
    assert_schema(df, S.USER, platform)
    assert len(df) == 1
    row = df.iloc[0]
    assert row["user_id"] == user.user_id
    assert row["phone"] == platform.user_phone
    assert str(df["status"].dtype) == "Int64"
    # a chint platform answers our active (1) as its activated (4)
    assert row["status_name"] == ("activated" if platform.dialect == "chint" else "active")
    assert str(df["gmt_register"].dtype) == "datetime64[ns, UTC]"
    assert isinstance(row["network.ssid"], str)
    assert "network.pw" not in df.columns


def test_ops_look_up_by_each_selector(platform: ServedPlatform) -> None:
    ops = platform.connect()
    target = ops.users.get(area_code="1", phone=platform.user_phone)
    user_id, identity_id = target["user_id"].item(), target["identity_id"].item()
    assert ops.users.get(user_id)["phone"].item() == platform.user_phone
    assert ops.users.get(identity_id=identity_id)["user_id"].item() == user_id


def test_a_user_cannot_see_others(platform: ServedPlatform) -> None:
    user = platform.connect("user")
    with pytest.raises(opslib.NotFound):
        user.users.get(area_code="1", phone=platform.ops_phone)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"user_id": "u", "identity_id": "i"},
        {"area_code": "1"},
        {"phone": "5550000001", "user_id": "u"},
    ],
)
def test_selector_mistakes(platform: ServedPlatform, kwargs: dict[str, str]) -> None:
    with pytest.raises(ValueError, match=r"area_code|one of"):
        platform.connect().users.get(**kwargs)


def test_update_profile(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    df = user.users.update(
        nick_name="Night shift", network={"ssid": "Ops-5G", "pw": "wifi-password"}
    )
    assert_schema(df, S.USER_UPDATE_RESULT, fresh_platform)
    assert df["ok"].item()
    assert df["user_id"].item() == user.user_id
    me = user.users.get()
    assert me["nick_name"].item() == "Night shift"
    assert me["network.ssid"].item() == "Ops-5G"
    for network, said in [
        ({"ssid": None}, "network.ssid is None"),  # was sent as the text "None"
        ({"pw": None}, "network.pw is None"),
        (["ssid"], "network must be a dict"),
    ]:
        with pytest.raises(TypeError, match=said):
            user.users.update(network=network)  # type: ignore[arg-type]
    assert user.users.get()["network.ssid"].item() == "Ops-5G"


def test_update_needs_a_field_and_known_members(platform: ServedPlatform) -> None:
    client = platform.connect("user")
    with pytest.raises(ValueError, match="at least one"):
        client.users.update()
    with pytest.raises(ValueError, match="password"):
        client.users.update(network={"password": "x"})


def test_identity_id_taken_is_a_conflict(fresh_platform: ServedPlatform) -> None:
    ops = fresh_platform.connect()
    taken = ops.users.get(area_code="1", phone=fresh_platform.user_phone)["identity_id"].item()
    # chint documents no code for a taken identity_id: its edge keeps ours, 409
    with pytest.raises(opslib.Conflict) as info:
        ops.users.update(identity_id=taken)
    assert info.value.code == error_code(fresh_platform, 409)
    df = ops.users.update(identity_id=taken, errors="collect")
    assert df["ok"].tolist() == [False]
    assert df["error_code"].tolist() == [error_code(fresh_platform, 409)]
    assert "identity_id" in df["error_msg"].item()


@pytest.mark.parametrize("which", ["all", "message", "device"])
def test_settings(platform: ServedPlatform, which: str) -> None:
    user = platform.connect("user")
    df = user.users.settings(which)
    assert_schema(df, S.SETTINGS, platform)
    assert df["user_id"].item() == user.user_id
    assert str(df["message_config.no_disturbing"].dtype) == "boolean"
    assert str(df["dev_config.page_size"].dtype) == "Int64"
    has_message = which in ("all", "message")
    has_device = which in ("all", "device")
    assert df["message_config.start"].notna().item() is has_message
    assert df["dev_config.page_size"].notna().item() is has_device


def test_settings_which_is_checked(platform: ServedPlatform) -> None:
    with pytest.raises(ValueError, match="which"):
        platform.connect().users.settings("everything")


def test_update_settings(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    df = user.users.update_settings(no_disturbing=True, start="22:30", end=dt.time(6, 15))
    assert_schema(df, S.SETTINGS_UPDATE_RESULT, fresh_platform)
    assert df["ok"].item()
    after = user.users.settings("message").iloc[0]
    assert after["message_config.no_disturbing"]
    assert after["message_config.start"] == 22 * 60 + 30
    assert after["message_config.end"] == 6 * 60 + 15
    settings = user.users.settings("message")  # a frame's cell is numpy's bool, not Python's
    flipped = ~settings["message_config.no_disturbing"].to_numpy(dtype=bool)
    assert user.users.update_settings(no_disturbing=flipped[0])["ok"].item()
    assert not user.users.settings("message")["message_config.no_disturbing"].item()


def test_update_settings_checks_names_and_values(platform: ServedPlatform) -> None:
    client = platform.connect("user")
    with pytest.raises(ValueError, match="unknown setting"):
        client.users.update_settings(quiet=True)
    with pytest.raises(TypeError, match="bool"):
        client.users.update_settings(no_disturbing="yes")
    # refused before sending, on every dialect (chint's epoch-second times cannot hold it)
    with pytest.raises(
        ValueError, match=r"start: 5000 is not minutes after midnight; allowed 0..1439"
    ):
        client.users.update_settings(start=5000)
    with pytest.raises(ValueError, match=r"end: '24:30' is not a time of day"):
        client.users.update_settings(end="24:30")
