"""User profiles and message/device settings (protocol §6.10, §6.12, §6.15, §6.17)."""

from __future__ import annotations

from typing import Any

from opslib.enums import Role, SettingQueryModel, UserQueryModel
from opslib.server.context import Context, gmt
from opslib.server.errors import ApiError
from opslib.server.models import UpdateSysSettingParams, UpdateUserInfoParams, UserQueryParams
from opslib.server.store import users as users_store

# A user without a settings row reads the schema's defaults.
_DEFAULT_SETTINGS = {
    "dev_page_size": 20,
    "recv_sys_notice": 1,
    "recv_device_notice": 1,
    "no_disturbing": 0,
    "dnd_start": 1320,
    "dnd_end": 420,
    "unread_notice_num": 0,
}


def query_user(ctx: Context, p: UserQueryParams) -> dict[str, Any]:
    """Read a user; a plain user sees only itself, anything else is "not found"."""
    if p.query_model == UserQueryModel.BY_USER_ID:
        assert p.user_id is not None
        user = users_store.get_user(ctx.conn, user_id=p.user_id)
        field = "user_id"
    elif p.query_model == UserQueryModel.BY_PHONE:
        assert p.area_code is not None
        assert p.phone is not None
        user = users_store.get_user_by_phone(ctx.conn, area_code=p.area_code, phone=p.phone)
        field = "phone"
    else:
        assert p.identity_id is not None
        user = users_store.get_user_by_identity(ctx.conn, identity_id=p.identity_id)
        field = "identity_id"
    if user is None or (user["user_id"] != ctx.user.user_id and not ctx.user.is_ops):
        raise ApiError(404, f"params.{field}: user not found")
    return {
        "user_id": user["user_id"],
        "identity_id": user["identity_id"] or "",
        "area_code": user["area_code"],
        "phone": user["phone"],
        "nick_name": user["nick_name"],
        "avatar": user["avatar"],
        "status": user["status"],
        "network": {"ssid": user["network_ssid"]},
        "gmt_register": gmt(user["gmt_register"]),
        "gmt_modified": gmt(user["gmt_modified"]),
        "gmt_last_login": gmt(user["gmt_last_login"]),
        "gmt_logout": gmt(user["gmt_logout"]),
        "role": Role(user["role"]).name.lower(),
    }


def update_user_info(ctx: Context, p: UpdateUserInfoParams) -> dict[str, Any]:
    """Set the given profile fields; an identity_id held by another user is a 409."""
    user_id = ctx.user.user_id
    fields: dict[str, Any] = {}
    if p.nick_name is not None:
        fields["nick_name"] = p.nick_name
    if p.avatar is not None:
        fields["avatar"] = p.avatar
    if p.identity_id is not None:
        holder = users_store.get_user_by_identity(ctx.conn, identity_id=p.identity_id)
        if holder is not None and holder["user_id"] != user_id:
            raise ApiError(409, "params.identity_id: already taken by another user")
        fields["identity_id"] = p.identity_id
    if p.network is not None:
        if p.network.ssid is not None:
            fields["network_ssid"] = p.network.ssid
        if p.network.pw is not None:
            fields["network_pw"] = p.network.pw
    if fields:
        users_store.update_profile(ctx.conn, user_id=user_id, fields=fields, now=ctx.now)
    return {}


def query_settings(ctx: Context, query_model: int) -> dict[str, Any]:
    """Device and/or message settings of the caller, by query_model."""
    row = users_store.get_settings(ctx.conn, user_id=ctx.user.user_id)
    if row is None:
        user = users_store.get_user(ctx.conn, user_id=ctx.user.user_id)
        assert user is not None
        row = {**_DEFAULT_SETTINGS, "gmt_modified": user["gmt_register"]}
    data: dict[str, Any] = {}
    if query_model in (SettingQueryModel.ALL, SettingQueryModel.DEVICE):
        data["dev_config"] = {"page_size": row["dev_page_size"]}
    if query_model in (SettingQueryModel.ALL, SettingQueryModel.MESSAGE):
        data["message_config"] = {
            "recv_sys_notice": bool(row["recv_sys_notice"]),
            "recv_device_notice": bool(row["recv_device_notice"]),
            "no_disturbing": bool(row["no_disturbing"]),
            "start": row["dnd_start"],
            "end": row["dnd_end"],
            "unread_notice_num": row["unread_notice_num"],
        }
    data["gmt_modified"] = gmt(row["gmt_modified"])
    return data


def update_settings(ctx: Context, p: UpdateSysSettingParams) -> dict[str, Any]:
    """Set the given message-config fields of the caller."""
    config = p.message_config
    columns = {
        "recv_sys_notice": config.recv_sys_notice,
        "recv_device_notice": config.recv_device_notice,
        "no_disturbing": config.no_disturbing,
        "dnd_start": config.start,
        "dnd_end": config.end,
    }
    fields = {name: int(value) for name, value in columns.items() if value is not None}
    users_store.update_settings(ctx.conn, user_id=ctx.user.user_id, fields=fields, now=ctx.now)
    return {}
