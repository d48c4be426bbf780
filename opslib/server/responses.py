"""Response models, for the OpenAPI document only.

Handlers build plain dicts that are serialised by orjson (a 1000-row page never goes
through pydantic); ``tests/server/test_openapi.py`` checks real responses against these
models so the document stays true.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Failure(_Out):
    """Every failure (protocol §2): HTTP status equals error_code."""

    error_code: int
    message_id: str
    error_msg: str
    data: dict[str, Any]


class Ok(_Out, Generic[T]):
    """A success envelope around the operation's ``data``."""

    error_code: int
    message_id: str
    data: T


class EmptyData(_Out):
    pass


class PublicKeyData(_Out):
    public_key: str


class LoginNetwork(_Out):
    ssid: str
    pw: str


class LoginData(_Out):
    user_id: str
    code: str
    gmt_last_login: str
    nick_name: str
    network: LoginNetwork


class RegisterData(_Out):
    user_id: str
    code: str


class UserNetwork(_Out):
    ssid: str


class UserData(_Out):
    user_id: str
    identity_id: str
    area_code: str
    phone: str
    nick_name: str
    avatar: str
    status: int
    network: UserNetwork
    gmt_register: str
    gmt_modified: str
    gmt_last_login: str | None
    gmt_logout: str | None
    role: Literal["user", "ops", "admin"]  # extension (protocol §6.10)


class DevConfig(_Out):
    page_size: int


class MessageConfigOut(_Out):
    recv_sys_notice: bool
    recv_device_notice: bool
    no_disturbing: bool
    start: int
    end: int
    unread_notice_num: int


class SysSettingData(_Out):
    dev_config: DevConfig | None = None
    message_config: MessageConfigOut | None = None
    gmt_modified: str


class CategoryOut(_Out):
    category_id: int
    category_name: str
    category_icon: str


class CategoryListData(_Out):
    client_id: str
    category_list: list[CategoryOut]


class ProductOut(_Out):
    product_id: str
    product_name: str
    product_icon: str
    category_id: int
    vendor_type: int
    net_type: int
    encrypt_type: int
    node_type: int
    status: int
    popular: int
    gmt_create: str
    gmt_modified: str


class ProductListData(_Out):
    category_id: int
    category_name: str
    category_icon: str
    product_list: list[ProductOut]


class DeviceOut(_Out):
    device_id: str
    user_id: str
    mac_addr: str
    sdk_version: str
    version: str
    net_addr: str
    status: int
    owned: int
    group_id: int
    is_sub_device: bool
    product_id: str
    category_id: str
    properties: dict[str, Any]
    nick_name: str
    gmt_bind: str | None
    gmt_last_seen: str | None


class DeviceListData(_Out):
    total: int
    page_no: int
    page_size: int
    identity_id: str
    device_list: list[DeviceOut]


class EventOut(_Out):
    device_id: str
    user_id: str
    event_id: str
    event_type: int
    properties: dict[str, Any]
    code: str
    gmt_create: str
    ts: int  # extension (protocol §6.8): the moment in epoch ms; gmt_create shows seconds


class EventListData(_Out):
    total: int
    page_no: int
    page_size: int
    events_list: list[EventOut]


class ReportData(_Out):
    accepted: int


class TokenData(_Out):
    """``/token/access`` success: flat, no envelope."""

    error_code: int
    access_token: str
    refresh_token: str
    expires_in: int
    openid: str


class TokenFailure(_Out):
    """``/token/access`` failure: flat, with an RFC 6749 error code."""

    error_code: int
    error: str
    error_description: str
