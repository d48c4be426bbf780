"""Request models of every operation (protocol §5, §6): strict types, limits, enums.

Every model forbids unknown fields and validates strictly: a JSON string is not an
integer, ``1`` is not a boolean, ``5.0`` is not an integer. Enumerations are plain integers
checked against their set (pydantic's enum type would accept ``true`` for ``1``).
Conditionally required fields are checked by model validators whose errors name the field.
An optional field given as ``null`` counts as absent.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from opslib import enums
from opslib.server.fields import (
    AreaCode,
    AuthModelValue,
    CategoryId,
    CategoryIdText,
    ClientId,
    CodeModelValue,
    DeviceId,
    DeviceStatusValue,
    EncryptTypeValue,
    EnvelopeUserId,
    EpochMs,
    EventCode,
    EventMs,
    EventTypeValue,
    GroupId,
    IdentityId,
    ListedUserId,
    LoginModelValue,
    MacAddr,
    MessageId,
    Minute,
    Name,
    NetAddr,
    NetTypeValue,
    NickName,
    NodeTypeValue,
    OptionalToken,
    OwnedValue,
    PageNo,
    PageSize,
    Password,
    Phone,
    PopularValue,
    ProductId,
    ProductStatusValue,
    Properties,
    RecordQueryModelValue,
    SettingQueryModelValue,
    SharedSecret,
    SmsCode,
    Ssid,
    Token,
    UpdateModelValue,
    Url,
    UserId,
    UserQueryModelValue,
    VendorType,
    Version,
    WifiPassword,
    any_of,
    conditions,
    needs,
    when,
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _Envelope(_Strict):
    message_id: MessageId
    user_id: EnvelopeUserId


# --- user -----------------------------------------------------------------------------


class AuthCodeParams(_Strict):
    model_config = conditions(
        when("auth_model", 1, "code_model"), when("auth_model", 2, "auth_code")
    )

    client_id: ClientId
    auth_model: AuthModelValue
    # a verification without it checks any live code of the phone (protocol §6.1)
    code_model: CodeModelValue | None = None
    area_code: AreaCode
    phone: Phone
    auth_code: SmsCode | None = None
    access_token: OptionalToken | None = None

    @model_validator(mode="after")
    def _conditional(self) -> AuthCodeParams:
        if self.auth_model == enums.AuthModel.SEND and self.code_model is None:
            raise needs("code_model", "auth_model is 1")
        if self.auth_model == enums.AuthModel.VERIFY and self.auth_code is None:
            raise needs("auth_code", "auth_model is 2")
        return self


class LoginParams(_Strict):
    model_config = conditions(
        when("login_model", 1, "password"), when("login_model", 2, "auth_code")
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
            raise needs("password", "login_model is 1")
        if self.login_model == enums.LoginModel.SMS_CODE and self.auth_code is None:
            raise needs("auth_code", "login_model is 2")
        return self


class RegisterParams(_Strict):
    client_id: ClientId
    auth_code: SmsCode
    area_code: AreaCode
    phone: Phone
    password: Password
    access_token: OptionalToken | None = None


class UserQueryParams(_Strict):
    model_config = conditions(
        when("query_model", 1, "user_id"),
        when("query_model", 2, "area_code", "phone"),
        when("query_model", 3, "identity_id"),
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
            raise needs("user_id", "query_model is 1")
        if self.query_model == enums.UserQueryModel.BY_PHONE:
            if self.area_code is None:
                raise needs("area_code", "query_model is 2")
            if self.phone is None:
                raise needs("phone", "query_model is 2")
        if self.query_model == enums.UserQueryModel.BY_IDENTITY_ID and self.identity_id is None:
            raise needs("identity_id", "query_model is 3")
        return self


class QuerySysSettingParams(_Strict):
    access_token: Token
    query_model: SettingQueryModelValue


class MessageConfigIn(_Strict):
    model_config = any_of("recv_sys_notice", "recv_device_notice", "no_disturbing", "start", "end")

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
    model_config = conditions(
        when("update_model", 1, "access_token", "old_password"),
        when("update_model", 2, "area_code", "phone", "auth_code"),
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
                raise needs("access_token", "update_model is 1")
            if self.old_password is None:
                raise needs("old_password", "update_model is 1")
        else:
            for name in ("area_code", "phone", "auth_code"):
                if getattr(self, name) is None:
                    raise needs(name, "update_model is 2")
        return self


class NetworkIn(_Strict):
    ssid: Ssid | None = None
    pw: WifiPassword | None = None


class UpdateUserInfoParams(_Strict):
    model_config = any_of("nick_name", "avatar", "identity_id", "network")

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
    product_secret: SharedSecret
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
    model_config = conditions(
        when("query_model", 1, "device_id"), when("query_model", 2, "user_id_param")
    )

    access_token: Token
    query_model: RecordQueryModelValue
    start: Annotated[EpochMs, Field(description="epoch ms, included; must be less than end")]
    end: Annotated[EpochMs, Field(description="epoch ms, excluded; must be more than start")]
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
            raise needs("device_id", "query_model is 1")
        if self.query_model == enums.RecordQueryModel.USER and self.user_id_param is None:
            raise needs("user_id_param", "query_model is 2")
        return self


class DeviceQueryParams(_Strict):
    access_token: Token
    device_id: DeviceId
    user_id: UserId | None = None  # spec §4.9 lists it: the caller, if given


class BindParams(_Strict):
    access_token: Token
    device_id: DeviceId
    device_secret: SharedSecret
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
    ts: EventMs | None = None


class ReportRequest(_Strict):
    """``/device/report`` (protocol §6.19): device credentials instead of an envelope."""

    message_id: MessageId
    device_id: DeviceId
    device_secret: SharedSecret
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
