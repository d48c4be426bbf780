"""The interface's operations, declared once: what the client, the server, the probe, the
simulator and the docs know about each.

Every fact about an operation that does not depend on the platform lives here, as data
(the shape of botocore's service model): its path, how safe it is to send twice, who may
call it, what its answer looks like, which list it holds and how it pages, which fields
are moments, selectors or coded values, and the parameters the reference platform
requires (``docs/protocol.md`` §6). What a platform decides otherwise (0-based selectors,
pages of 100, other required parameters) is its :class:`~opslib.dialects.Dialect`.

>>> from opslib.protocol import operations as ops
>>> ops.QUERY_RECORD.path, ops.QUERY_RECORD.paged.list_key
('/device/query_record', 'events_list')
>>> ops.by_path("/product/add").answer
'bare'
>>> len(ops.SPEC_OPERATIONS)
18
"""

from __future__ import annotations

from opslib.protocol.operation import Operation, Paged, ParamType

__all__ = [
    "ADD_PRODUCT",
    "AUTH_CODE",
    "BIND",
    "DELETE_PRODUCT",
    "DEVICE_QUERY",
    "LOGIN",
    "OPERATIONS",
    "QUERY_BY_USER",
    "QUERY_CATEGORY",
    "QUERY_LIST_BY_CATEGORY",
    "QUERY_RECORD",
    "QUERY_SYS_SETTING",
    "REGISTER",
    "REPORT",
    "SPEC_OPERATIONS",
    "TOKEN",
    "UPDATE_INFO",
    "UPDATE_PWD",
    "UPDATE_SYS_SETTING",
    "UPDATE_USER_INFO",
    "USER_QUERY",
    "Operation",
    "Paged",
    "by_path",
    "named",
]

_PAGE: dict[str, ParamType] = {"page_no": "int", "page_size": "int"}
_PRODUCT_CODES = {
    "status": "product_status",
    "net_type": "net_type",
    "node_type": "node_type",
    "encrypt_type": "encrypt_type",
    "vendor_type": "vendor_type",
    "popular": "popular",
}

AUTH_CODE = Operation(
    "auth_code",
    "/user/auth_code",
    safety="read",
    safety_when=("auth_model", "send", "write"),
    role="pre",
    token=False,
    client_id=True,
    params={
        "access_token": "str",
        "client_id": "str",
        "auth_model": "int",
        "code_model": "int",
        "area_code": "str",
        "phone": "str",
        "auth_code": "str",
    },
    required=("client_id", "auth_model", "area_code", "phone"),
    selectors={"auth_model": "auth_model", "code_model": "code_model"},
)
TOKEN = Operation(
    "token",
    "/token/access",
    answer="token",
    safety="once",
    role="pre",
    token=False,
    params={
        "grant_type": "str",
        "client_id": "str",
        "client_secret": "str",
        "code": "str",
        "redirect_uri": "str",
        "refresh_token": "str",
    },
    required=("grant_type", "client_id", "client_secret"),
)
LOGIN = Operation(
    "login",
    "/user/login",
    safety_when=("login_model", "sms_code", "once"),
    role="pre",
    token=False,
    client_id=True,
    params={
        "access_token": "str",
        "client_id": "str",
        "login_model": "int",
        "area_code": "str",
        "phone": "str",
        "password": "str",
        "auth_code": "str",
    },
    required=("client_id", "login_model", "area_code", "phone"),
    selectors={"login_model": "login_model"},
    times=("gmt_last_login",),
    schema="login",
)
REGISTER = Operation(
    "register",
    "/user/register",
    safety="write",
    role="pre",
    token=False,
    client_id=True,
    params={
        "access_token": "str",
        "client_id": "str",
        "auth_code": "str",
        "area_code": "str",
        "phone": "str",
        "password": "str",
    },
    required=("client_id", "auth_code", "area_code", "phone", "password"),
)
QUERY_CATEGORY = Operation(
    "query_category",
    "/product/query_category",
    client_id=True,
    params={"access_token": "str", "client_id": "str"},
    required=("client_id",),
    list_key="category_list",
    schema="category",
)
QUERY_LIST_BY_CATEGORY = Operation(
    "query_list_by_category",
    "/product/query_list_by_category",
    client_id=True,
    params={"access_token": "str", "client_id": "str", "category_id": "int"},
    required=("client_id", "category_id"),
    codes=_PRODUCT_CODES,
    times=("gmt_create", "gmt_modified"),
    list_key="product_list",
    secret="product_secret",  # noqa: S106 - a field name
    schema="product",
)
QUERY_BY_USER = Operation(
    "query_by_user",
    "/device/query_by_user",
    params={
        "access_token": "str",
        "user_id": "str",
        **_PAGE,
        "owned": "int",
        "group_id": "int",
        "is_sub_device": "bool",
    },
    selectors={"owned": "owned"},
    codes={"status": "device_status", "owned": "owned"},
    times=("gmt_bind", "gmt_last_seen"),
    list_key="device_list",
    paged=Paged("device_list", key=("device_id",)),
    fleet=("user_id", ""),
    secret="device_secret",  # noqa: S106 - a field name
    schema="device",
)
QUERY_RECORD = Operation(
    "query_record",
    "/device/query_record",
    params={
        "access_token": "str",
        "user_id": "str",
        "query_model": "int",
        **_PAGE,
        "start": "int",
        "end": "int",
        "device_id": "str",
        "user_id_param": "str",
        "event_type": "int",
    },
    required=("query_model", "start", "end"),
    selectors={"query_model": "record_query_model"},
    codes={"event_type": "event_type"},
    times=("gmt_create",),
    window=("start", "end"),
    list_key="events_list",
    paged=Paged("events_list", key=("event_id",), time_field="gmt_create"),
    aliases={"user_id": "user_id_param"},
    modes={"device": ("device_id",), "user": ("user_id_param",), "fleet": ()},
    fleet=("query_model", "fleet"),
    schema="event",
)
DEVICE_QUERY = Operation(
    "device_query",
    "/device/query",
    params={"access_token": "str", "user_id": "str", "device_id": "str"},
    required=("device_id",),
    codes={"status": "device_status", "owned": "owned"},
    times=("gmt_bind", "gmt_last_seen"),
    caller_param="user_id",
    secret="device_secret",  # noqa: S106 - a field name
    schema="device",
)
USER_QUERY = Operation(
    "user_query",
    "/user/query",
    params={
        "access_token": "str",
        "query_model": "int",
        "user_id": "str",
        "area_code": "str",
        "phone": "str",
        "identity_id": "str",
    },
    required=("query_model",),
    selectors={"query_model": "user_query_model"},
    codes={"status": "user_status"},
    times=("gmt_register", "gmt_modified", "gmt_last_login", "gmt_logout"),
    schema="user",
)
BIND = Operation(
    "bind",
    "/device/bind",
    safety="write",
    params={
        "access_token": "str",
        "device_id": "str",
        "mac_addr": "str",
        "device_secret": "str",
        "sdk_version": "str",
        "version": "str",
        "net_addr": "str",
        "status": "int",
        "group_id": "int",
        "is_sub_device": "bool",
        "owned": "int",
        "product_id": "str",
        "category_id": "str",
    },
    required=("device_id", "device_secret", "product_id"),
    selectors={"owned": "owned"},
    codes={"status": "device_status"},
)
QUERY_SYS_SETTING = Operation(
    "query_sys_setting",
    "/user/query_sys_setting",
    params={"access_token": "str", "query_model": "int"},
    required=("query_model",),
    selectors={"query_model": "setting_query_model"},
    times=("gmt_modified",),
    day_minutes=("start", "end"),
    schema="settings",
)
DELETE_PRODUCT = Operation(
    "delete_product",
    "/product/delete",
    answer="bare",
    safety="write",
    role="admin",
    params={"access_token": "str", "product_id": "str"},
    required=("product_id",),
)
ADD_PRODUCT = Operation(
    "add_product",
    "/product/add",
    answer="bare",
    safety="write",
    role="admin",
    params={
        "access_token": "str",
        "product_id": "str",
        "product_secret": "str",
        "product_name": "str",
        "product_icon": "str",
        "category_id": "int",
        "vendor_type": "int",
        "net_type": "int",
        "encrypt_type": "int",
        "node_type": "int",
        "status": "int",
        "popular": "int",
    },
    required=(
        "product_id",
        "product_secret",
        "product_name",
        "category_id",
        "net_type",
        "node_type",
    ),
    codes=_PRODUCT_CODES,
)
UPDATE_SYS_SETTING = Operation(
    "update_sys_setting",
    "/user/update_sys_setting",
    safety="write",
    params={"access_token": "str", "message_config": "object"},
    required=("message_config",),
    day_minutes=("start", "end"),
)
UPDATE_PWD = Operation(
    "update_pwd",
    "/user/update_pwd",
    safety="write",
    params={
        "access_token": "str",
        "area_code": "str",
        "phone": "str",
        "new_password": "str",
        "update_model": "int",
        "old_password": "str",
        "auth_code": "str",
    },
    required=("update_model", "new_password"),
    selectors={"update_model": "update_model"},
    tokenless_when=("update_model", "reset"),
)
UPDATE_USER_INFO = Operation(
    "update_user_info",
    "/user/update_user_info",
    safety="write",
    params={
        "access_token": "str",
        "nick_name": "str",
        "avatar": "str",
        "identity_id": "str",
        "network": "object",
    },
)
UPDATE_INFO = Operation(
    "update_info",
    "/device/update_info",
    safety="write",
    params={
        "access_token": "str",
        "device_id": "str",
        "user_id": "str",
        "owned": "int",
        "group_id": "int",
        "is_sub_device": "bool",
    },
    required=("device_id",),
    selectors={"owned": "owned"},
    caller_param="user_id",
)
REPORT = Operation(
    "report",
    "/device/report",
    safety="write",
    role="device",
    token=False,
    codes={"event_type": "event_type"},
    extension=True,
)

SPEC_OPERATIONS: tuple[Operation, ...] = (
    AUTH_CODE,
    TOKEN,
    LOGIN,
    REGISTER,
    QUERY_CATEGORY,
    QUERY_LIST_BY_CATEGORY,
    QUERY_BY_USER,
    QUERY_RECORD,
    DEVICE_QUERY,
    USER_QUERY,
    BIND,
    QUERY_SYS_SETTING,
    DELETE_PRODUCT,
    ADD_PRODUCT,
    UPDATE_SYS_SETTING,
    UPDATE_PWD,
    UPDATE_USER_INFO,
    UPDATE_INFO,
)
"""The spec's 18 operations, in the spec's order (part 4)."""
OPERATIONS: tuple[Operation, ...] = (*SPEC_OPERATIONS, REPORT)
"""The spec's 18 and the reference platform's extension (``/device/report``)."""

_BY_PATH = {op.path: op for op in OPERATIONS}
_BY_NAME = {op.name: op for op in OPERATIONS}


def by_path(path: str) -> Operation:
    """The operation at ``path``; a ``KeyError`` names the known paths.

    >>> by_path("/user/login").name
    'login'
    """
    try:
        return _BY_PATH[path]
    except KeyError:
        raise KeyError(f"no operation at {path!r}; known: {sorted(_BY_PATH)}") from None


def named(name: str | Operation) -> Operation:
    """The operation called ``name`` (``"query_record"``), or at that path (its leading
    ``/`` may be left out, as in a URL joined to the base), or itself.

    >>> named("query_record") is named("/device/query_record") is QUERY_RECORD
    True
    >>> named("device/query_record") is QUERY_RECORD
    True
    """
    if isinstance(name, Operation):
        return name
    found = _BY_NAME.get(name) or _BY_PATH.get("/" + name.strip().lstrip("/"))
    if found is None:
        known = ", ".join(f"{op.name} ({op.path})" for op in OPERATIONS)
        raise KeyError(f"no operation {name!r}; the operations are {known}") from None
    return found
