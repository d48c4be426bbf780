"""Request models of every operation (protocol §5, §6): strict types, limits, enums.

Every model forbids unknown fields and validates strictly: a JSON string is not an
integer, ``1`` is not a boolean, ``5.0`` is not an integer. Enumerations are plain integers
checked against their set (pydantic's enum type would accept ``true`` for ``1``).
Conditionally required fields are checked by model validators whose errors name the field.
An optional field given as ``null`` counts as absent.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Annotated, Any

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from opslib import enums

MAX_INT32 = 2**31 - 1
MAX_MS = 2**53

UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
# What each pattern means, for error messages a person can act on.
PATTERN_HINTS = {
    UUID_PATTERN: "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
    r"^[0-9]{1,4}$": "1 to 4 digits, no '+'",
    r"^[0-9]{4,15}$": "4 to 15 digits",
    r"^[0-9]{6}$": "exactly 6 digits",
    r"^[A-Za-z0-9_.-]{1,64}$": "1 to 64 of A-Z a-z 0-9 _ . -",
    r"^[A-Za-z0-9_.:-]{1,64}$": "1 to 64 of A-Z a-z 0-9 _ . : -",
    r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$": "a MAC address XX:XX:XX:XX:XX:XX",
    r"^[1-9][0-9]{0,9}$": "a positive integer written as digits",
}


def _member_of(enum: type[IntEnum]) -> AfterValidator:
    allowed = [int(member) for member in enum]

    def check(value: int) -> int:
        if value not in allowed:
            raise PydanticCustomError(
                "enum_value",
                "must be one of {allowed}, got {got}",
                {"allowed": ", ".join(map(str, allowed)), "got": value},
            )
        return value

    return AfterValidator(check)


def _values(enum: type[IntEnum]) -> Any:
    return Field(json_schema_extra={"enum": [int(member) for member in enum]})


def _json_object_max(max_bytes: int) -> AfterValidator:
    def check(value: dict[str, Any]) -> dict[str, Any]:
        try:
            size = len(orjson.dumps(value))
        except orjson.JSONEncodeError:  # integers beyond 64 bits
            raise PydanticCustomError(
                "json_range", "must hold only integers within 64 bits"
            ) from None
        if size > max_bytes:
            raise PydanticCustomError(
                "too_big",
                "must be at most {limit} bytes encoded, got {size}",
                {"limit": max_bytes, "size": size},
            )
        return value

    return AfterValidator(check)


def _text(min_length: int, max_length: int) -> Any:
    return Field(min_length=min_length, max_length=max_length)


def _pattern(pattern: str) -> Any:
    return Field(pattern=pattern)


def _range(ge: int, le: int) -> Any:
    return Field(ge=ge, le=le)


MessageId = Annotated[str, _pattern(UUID_PATTERN)]
EnvelopeUserId = Annotated[str, _text(0, 64)]
ClientId = Annotated[str, _text(1, 64)]
Token = Annotated[str, _text(1, 256)]
OptionalToken = Annotated[str, _text(0, 256)]  # ignored on pre-login operations
AreaCode = Annotated[str, _pattern(r"^[0-9]{1,4}$")]
Phone = Annotated[str, _pattern(r"^[0-9]{4,15}$")]
SmsCode = Annotated[str, _pattern(r"^[0-9]{6}$")]
Password = Annotated[str, _text(8, 128)]
NickName = Annotated[str, _text(0, 64)]
Url = Annotated[str, _text(0, 512)]
IdentityId = Annotated[str, _pattern(r"^[A-Za-z0-9_.-]{1,64}$")]
UserId = Annotated[str, _text(1, 64)]
ListedUserId = Annotated[str, _text(0, 64)]  # "" is the whole fleet
DeviceId = Annotated[str, _pattern(r"^[A-Za-z0-9_.:-]{1,64}$")]
Secret = Annotated[str, _text(8, 128)]
MacAddr = Annotated[str, _pattern(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")]
Version = Annotated[str, _text(1, 32)]
NetAddr = Annotated[str, _text(0, 64)]
Ssid = Annotated[str, _text(0, 32)]
WifiPassword = Annotated[str, _text(0, 63)]
ProductId = Annotated[str, _pattern(r"^[A-Za-z0-9_.-]{1,64}$")]
Name = Annotated[str, _text(1, 128)]
CategoryId = Annotated[int, _range(1, MAX_INT32)]
CategoryIdText = Annotated[str, _pattern(r"^[1-9][0-9]{0,9}$")]
GroupId = Annotated[int, _range(0, MAX_INT32)]
VendorType = Annotated[int, _range(0, 99)]
PageNo = Annotated[int, _range(1, MAX_INT32)]
PageSize = Annotated[int, _range(1, 1000)]
EpochMs = Annotated[int, _range(0, MAX_MS)]
Minute = Annotated[int, _range(0, 1439)]
EventCode = Annotated[str, _text(0, 32)]
Properties = Annotated[dict[str, Any], _json_object_max(8192)]

AuthModelValue = Annotated[int, _member_of(enums.AuthModel), _values(enums.AuthModel)]
CodeModelValue = Annotated[int, _member_of(enums.CodeModel), _values(enums.CodeModel)]
LoginModelValue = Annotated[int, _member_of(enums.LoginModel), _values(enums.LoginModel)]
UserQueryModelValue = Annotated[
    int, _member_of(enums.UserQueryModel), _values(enums.UserQueryModel)
]
RecordQueryModelValue = Annotated[
    int, _member_of(enums.RecordQueryModel), _values(enums.RecordQueryModel)
]
SettingQueryModelValue = Annotated[
    int, _member_of(enums.SettingQueryModel), _values(enums.SettingQueryModel)
]
UpdateModelValue = Annotated[int, _member_of(enums.UpdateModel), _values(enums.UpdateModel)]
OwnedValue = Annotated[int, _member_of(enums.Owned), _values(enums.Owned)]
EventTypeValue = Annotated[int, _member_of(enums.EventType), _values(enums.EventType)]
DeviceStatusValue = Annotated[int, _member_of(enums.DeviceStatus), _values(enums.DeviceStatus)]
NetTypeValue = Annotated[int, _member_of(enums.NetType), _values(enums.NetType)]
NodeTypeValue = Annotated[int, _member_of(enums.NodeType), _values(enums.NodeType)]
EncryptTypeValue = Annotated[int, _member_of(enums.EncryptType), _values(enums.EncryptType)]
ProductStatusValue = Annotated[int, _member_of(enums.ProductStatus), _values(enums.ProductStatus)]
PopularValue = Annotated[int, _member_of(enums.Popular), _values(enums.Popular)]


def _needs(field: str, condition: str) -> PydanticCustomError:
    return PydanticCustomError(
        "required_when", "required when {condition}", {"field": field, "condition": condition}
    )


def _when(field: str, value: int, *required: str) -> dict[str, Any]:
    """JSON Schema for "``required`` are required when ``field`` is ``value``" (OpenAPI)."""
    return {
        "if": {"properties": {field: {"const": value}}, "required": [field]},
        "then": {"required": list(required)},
    }


def _conditions(*rules: dict[str, Any]) -> ConfigDict:
    return ConfigDict(json_schema_extra={"allOf": list(rules)})


def _any_of(*fields: str) -> ConfigDict:
    return ConfigDict(json_schema_extra={"anyOf": [{"required": [f]} for f in fields]})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _Envelope(_Strict):
    message_id: MessageId
    user_id: EnvelopeUserId


# --- user -----------------------------------------------------------------------------


class AuthCodeParams(_Strict):
    model_config = _conditions(_when("auth_model", 2, "auth_code"))

    client_id: ClientId
    auth_model: AuthModelValue
    code_model: CodeModelValue
    area_code: AreaCode
    phone: Phone
    auth_code: SmsCode | None = None
    access_token: OptionalToken | None = None

    @model_validator(mode="after")
    def _conditional(self) -> AuthCodeParams:
        if self.auth_model == enums.AuthModel.VERIFY and self.auth_code is None:
            raise _needs("auth_code", "auth_model is 2")
        return self


class LoginParams(_Strict):
    model_config = _conditions(
        _when("login_model", 1, "password"), _when("login_model", 2, "auth_code")
    )

    client_id: ClientId
    login_model: LoginModelValue
    area_code: AreaCode
    phone: Phone
    password: Password | None = None
    auth_code: SmsCode | None = None
    access_token: OptionalToken | None = None

    @model_validator(mode="after")
    def _conditional(self) -> LoginParams:
        if self.login_model == enums.LoginModel.PASSWORD and self.password is None:
            raise _needs("password", "login_model is 1")
        if self.login_model == enums.LoginModel.SMS_CODE and self.auth_code is None:
            raise _needs("auth_code", "login_model is 2")
        return self


class RegisterParams(_Strict):
    client_id: ClientId
    auth_code: SmsCode
    area_code: AreaCode
    phone: Phone
    password: Password
    access_token: OptionalToken | None = None


class UserQueryParams(_Strict):
    model_config = _conditions(
        _when("query_model", 1, "user_id"),
        _when("query_model", 2, "area_code", "phone"),
        _when("query_model", 3, "identity_id"),
    )

    access_token: Token
    query_model: UserQueryModelValue
    user_id: UserId | None = None
    area_code: AreaCode | None = None
    phone: Phone | None = None
    identity_id: IdentityId | None = None

    @model_validator(mode="after")
    def _conditional(self) -> UserQueryParams:
        if self.query_model == enums.UserQueryModel.BY_USER_ID and self.user_id is None:
            raise _needs("user_id", "query_model is 1")
        if self.query_model == enums.UserQueryModel.BY_PHONE:
            if self.area_code is None:
                raise _needs("area_code", "query_model is 2")
            if self.phone is None:
                raise _needs("phone", "query_model is 2")
        if self.query_model == enums.UserQueryModel.BY_IDENTITY_ID and self.identity_id is None:
            raise _needs("identity_id", "query_model is 3")
        return self


class QuerySysSettingParams(_Strict):
    access_token: Token
    query_model: SettingQueryModelValue


class MessageConfigIn(_Strict):
    model_config = _any_of("recv_sys_notice", "recv_device_notice", "no_disturbing", "start", "end")

    recv_sys_notice: bool | None = None
    recv_device_notice: bool | None = None
    no_disturbing: bool | None = None
    start: Minute | None = None
    end: Minute | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> MessageConfigIn:
        if all(getattr(self, name) is None for name in type(self).model_fields):
            raise PydanticCustomError(
                "empty_update",
                "must set at least one of recv_sys_notice, recv_device_notice,"
                " no_disturbing, start, end",
            )
        return self


class UpdateSysSettingParams(_Strict):
    access_token: Token
    message_config: MessageConfigIn


class UpdatePwdParams(_Strict):
    model_config = _conditions(
        _when("update_model", 1, "access_token", "old_password"),
        _when("update_model", 2, "area_code", "phone", "auth_code"),
    )

    update_model: UpdateModelValue
    new_password: Password
    access_token: Token | None = None
    area_code: AreaCode | None = None
    phone: Phone | None = None
    old_password: Password | None = None
    auth_code: SmsCode | None = None

    @model_validator(mode="after")
    def _conditional(self) -> UpdatePwdParams:
        if self.update_model == enums.UpdateModel.CHANGE:
            if self.access_token is None:
                raise _needs("access_token", "update_model is 1")
            if self.old_password is None:
                raise _needs("old_password", "update_model is 1")
        else:
            for name in ("area_code", "phone", "auth_code"):
                if getattr(self, name) is None:
                    raise _needs(name, "update_model is 2")
        return self


class NetworkIn(_Strict):
    ssid: Ssid | None = None
    pw: WifiPassword | None = None


class UpdateUserInfoParams(_Strict):
    model_config = _any_of("nick_name", "avatar", "identity_id", "network")

    access_token: Token
    nick_name: NickName | None = None
    avatar: Url | None = None
    identity_id: IdentityId | None = None
    network: NetworkIn | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> UpdateUserInfoParams:
        if all(getattr(self, n) is None for n in ("nick_name", "avatar", "identity_id", "network")):
            raise PydanticCustomError(
                "empty_update", "must set at least one of nick_name, avatar, identity_id, network"
            )
        return self


# --- product --------------------------------------------------------------------------


class QueryCategoryParams(_Strict):
    access_token: Token
    client_id: ClientId


class QueryListByCategoryParams(_Strict):
    access_token: Token
    client_id: ClientId
    category_id: CategoryId


class ProductAddParams(_Strict):
    access_token: Token
    product_id: ProductId
    product_secret: Secret
    product_name: Name
    category_id: CategoryId
    net_type: NetTypeValue
    node_type: NodeTypeValue
    product_icon: Url = ""
    vendor_type: VendorType = 0
    encrypt_type: EncryptTypeValue = 0
    status: ProductStatusValue = 0
    popular: PopularValue = 0


class ProductDeleteParams(_Strict):
    access_token: Token
    product_id: ProductId


# --- device ---------------------------------------------------------------------------


class QueryByUserParams(_Strict):
    access_token: Token
    user_id: ListedUserId | None = None
    page_no: PageNo = 1
    page_size: PageSize = 20
    owned: OwnedValue | None = None
    group_id: GroupId | None = None
    is_sub_device: bool | None = None


class QueryRecordParams(_Strict):
    model_config = _conditions(
        _when("query_model", 1, "device_id"), _when("query_model", 2, "user_id_param")
    )

    access_token: Token
    query_model: RecordQueryModelValue
    start: EpochMs
    end: EpochMs
    user_id: UserId | None = None  # spec §4.8 lists it: the caller, if given
    device_id: DeviceId | None = None
    user_id_param: UserId | None = None
    event_type: EventTypeValue | None = None
    page_no: PageNo = 1
    page_size: PageSize = 20

    @model_validator(mode="after")
    def _conditional(self) -> QueryRecordParams:
        if self.start >= self.end:
            raise PydanticCustomError(
                "range_order",
                "must be less than params.end ({start} >= {end})",
                {"field": "start", "start": self.start, "end": self.end},
            )
        if self.query_model == enums.RecordQueryModel.DEVICE and self.device_id is None:
            raise _needs("device_id", "query_model is 1")
        if self.query_model == enums.RecordQueryModel.USER and self.user_id_param is None:
            raise _needs("user_id_param", "query_model is 2")
        return self


class DeviceQueryParams(_Strict):
    access_token: Token
    device_id: DeviceId
    user_id: UserId | None = None  # spec §4.9 lists it: the caller, if given


class BindParams(_Strict):
    access_token: Token
    device_id: DeviceId
    device_secret: Secret
    product_id: ProductId
    mac_addr: MacAddr | None = None
    sdk_version: Version | None = None
    version: Version | None = None
    net_addr: NetAddr | None = None
    status: DeviceStatusValue | None = None
    group_id: GroupId = 0
    is_sub_device: bool = False
    owned: OwnedValue | None = None
    category_id: CategoryIdText | None = None


class UpdateInfoParams(_Strict):
    access_token: Token
    device_id: DeviceId
    user_id: UserId | None = None
    owned: OwnedValue | None = None
    group_id: GroupId | None = None
    is_sub_device: bool | None = None


class ReportEvent(_Strict):
    event_type: EventTypeValue
    properties: Properties = Field(default_factory=dict)
    code: EventCode = ""
    ts: EpochMs | None = None


class ReportRequest(_Strict):
    """``/device/report`` (protocol §6.19): device credentials instead of an envelope."""

    message_id: MessageId
    device_id: DeviceId
    device_secret: Secret
    events: Annotated[list[ReportEvent], Field(min_length=1, max_length=500)]


# --- envelopes ------------------------------------------------------------------------


class AuthCodeRequest(_Envelope):
    params: AuthCodeParams


class LoginRequest(_Envelope):
    params: LoginParams


class RegisterRequest(_Envelope):
    params: RegisterParams


class UserQueryRequest(_Envelope):
    params: UserQueryParams


class QuerySysSettingRequest(_Envelope):
    params: QuerySysSettingParams


class UpdateSysSettingRequest(_Envelope):
    params: UpdateSysSettingParams


class UpdatePwdRequest(_Envelope):
    params: UpdatePwdParams


class UpdateUserInfoRequest(_Envelope):
    params: UpdateUserInfoParams


class QueryCategoryRequest(_Envelope):
    params: QueryCategoryParams


class QueryListByCategoryRequest(_Envelope):
    params: QueryListByCategoryParams


class ProductAddRequest(_Envelope):
    params: ProductAddParams


class ProductDeleteRequest(_Envelope):
    params: ProductDeleteParams


class QueryByUserRequest(_Envelope):
    params: QueryByUserParams


class QueryRecordRequest(_Envelope):
    params: QueryRecordParams


class DeviceQueryRequest(_Envelope):
    params: DeviceQueryParams


class BindRequest(_Envelope):
    params: BindParams


class UpdateInfoRequest(_Envelope):
    params: UpdateInfoParams
