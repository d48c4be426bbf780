"""opslib.server.services.users: profiles and settings as their owner and ops see them."""

from __future__ import annotations

import pytest

from opslib.enums import SettingQueryModel
from opslib.server import FakeClock, demo
from opslib.server.errors import ApiError
from opslib.server.models import (
    MessageConfigIn,
    UpdateSysSettingParams,
    UpdateUserInfoParams,
    UserQueryParams,
)
from opslib.server.services import users

from .conftest import MakeContext


def test_a_user_sees_itself_and_ops_sees_anyone(ctx: MakeContext) -> None:
    by_phone = UserQueryParams(
        access_token="t", query_model=2, area_code=demo.AREA_CODE, phone=demo.USER_PHONE
    )
    alice = users.query_user(ctx("alice"), by_phone)
    assert (alice["user_id"], alice["role"]) == ("u-alice", "user")
    assert users.query_user(ctx("ops"), by_phone)["user_id"] == "u-alice"
    with pytest.raises(ApiError, match=r"params\.phone: user not found") as hidden:
        users.query_user(ctx("bob"), by_phone)
    assert hidden.value.status == 404  # another user is "not found", not "forbidden"


def test_a_profile_update_shows_in_the_next_read(ctx: MakeContext, clock: FakeClock) -> None:
    clock.advance(seconds=5)
    p = UpdateUserInfoParams(access_token="t", nick_name="Bobby")
    users.update_user_info(ctx("bob"), p)
    by_id = UserQueryParams(access_token="t", query_model=1, user_id="u-bob")
    bob = users.query_user(ctx("bob"), by_id)
    assert bob["nick_name"] == "Bobby"
    assert bob["gmt_modified"] == "2024-05-01 00:00:05"  # the fake clock's moment


def test_settings_by_query_model(ctx: MakeContext) -> None:
    message = MessageConfigIn(no_disturbing=True, start=1320, end=420)
    p = UpdateSysSettingParams(access_token="t", message_config=message)
    assert users.update_settings(ctx("bob"), p) == {}
    everything = users.query_settings(ctx("bob"), SettingQueryModel.ALL)
    assert set(everything) == {"dev_config", "message_config", "gmt_modified"}
    config = everything["message_config"]
    assert (config["no_disturbing"], config["start"], config["end"]) == (True, 1320, 420)
    message_only = users.query_settings(ctx("bob"), SettingQueryModel.MESSAGE)
    assert set(message_only) == {"message_config", "gmt_modified"}
    device_only = users.query_settings(ctx("bob"), SettingQueryModel.DEVICE)
    assert set(device_only) == {"dev_config", "gmt_modified"}
