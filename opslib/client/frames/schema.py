"""Every DataFrame's columns and dtypes, declared once.

Each operation's frame has a :class:`FrameSchema`: fixed columns with nullable dtypes
(``Int64``, ``boolean``, ``string``), gmt_* moments as ``datetime64[ns, UTC]``, a readable
``*_name`` label (categorical) beside each coded column, and nested objects flattened into
dotted columns (``network.ssid``, ``message_config.start``). Open-ended objects
(``properties``) become ``properties.<key>`` columns after the fixed ones; their dtypes
follow the data. An empty result has exactly the fixed columns with their dtypes.

Some platforms send a device's or a product's secret in their reads (``device_secret``,
``product_secret``). A frame travels far (notebook outputs, HTML reports, exports), so a
read drops every column a secret names (:func:`~opslib.client.frames.build.drop_secrets`)
unless the caller passes ``include_secrets=True``: the schema then has the secret fields as
string columns (:func:`with_secrets`).

The conversion from records to frames lives in :mod:`opslib.client.frames.build`; this
module only declares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import IntEnum

import pandas as pd

from opslib import enums

STRING = pd.StringDtype()
INT = pd.Int64Dtype()
BOOL = pd.BooleanDtype()
FLOAT = pd.Float64Dtype()
TIME = pd.DatetimeTZDtype(unit="ns", tz="UTC")


def label_dtype(labels: Mapping[int, str]) -> pd.CategoricalDtype:
    """The categorical dtype of the ``*_name`` column beside a coded column."""
    return pd.CategoricalDtype(categories=list(dict.fromkeys(labels.values())))


@dataclass(frozen=True)
class Column:
    """One fixed column: its name, dtype and, for coded integers, the enum it labels.

    ``ms_field`` names a record field holding a moment column's value as integer epoch
    milliseconds (the platform's ``ts`` extension on events): when every record has it,
    the column is built from it (truncated to the second, as the text shows it) instead of
    parsing the text, and the read keeps the milliseconds to check the platform's order.
    ``labels`` are the platform's names of the codes (:meth:`FrameSchema.labelled`),
    else ``enum``'s (ours).
    """

    name: str
    dtype: object
    enum: type[IntEnum] | None = None
    ms_field: str | None = None
    labels: tuple[tuple[int, str], ...] = ()
    label_name: str = field(init=False, compare=False, repr=False)
    """The ``*_name`` column beside a coded column ("" for any other)."""
    label_map: Mapping[int, str] = field(init=False, compare=False, repr=False)
    """Code -> label of a coded column."""

    def __post_init__(self) -> None:
        # Fields, not properties: the frame builder reads them for every column of a read.
        object.__setattr__(self, "label_name", f"{self.name}_name" if self.enum else "")
        labels = dict(self.labels) if self.labels else None
        if labels is None:
            labels = enums.labels(self.enum) if self.enum is not None else {}
        object.__setattr__(self, "label_map", labels)

    @property
    def enum_key(self) -> str:
        """The dialect's enums key of this column in a schema (``status`` is per object,
        see :meth:`FrameSchema.labelled`)."""
        return self.name


@dataclass(frozen=True)
class FrameSchema:
    """The declared shape of one operation's frame.

    ``open_objects`` lists the record keys whose members become dotted columns after the
    fixed ones (``properties``). ``key`` names the column(s) that identify a row; list reads
    drop duplicate keys and sort by ``order``, and rows joined from several reads (one per
    user) by ``joined_order`` where it is given.
    """

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...] = ()
    order: tuple[str, ...] = ()
    open_objects: tuple[str, ...] = field(default=())
    joined_order: tuple[str, ...] = ()

    def dtypes(self) -> dict[str, object]:
        """Fixed columns and their dtypes, label columns right after their coded column."""
        out: dict[str, object] = {}
        for col in self.columns:
            out[col.name] = col.dtype
            if col.enum is not None:
                out[col.label_name] = label_dtype(col.label_map)
        return out

    def labelled(self, labels_of: Callable[[str, type[IntEnum]], Mapping[int, str]]) -> FrameSchema:
        """This schema with the platform's labels on its coded columns: ``labels_of(key,
        enum)`` names the codes of the dialect's enums ``key`` (``device_status`` for a
        device's ``status``, ``event_type``...)."""
        columns = []
        for col in self.columns:
            if col.enum is not None:
                key = f"{self.name}_status" if col.name == "status" else col.name
                col = replace(col, labels=tuple(labels_of(key, col.enum).items()))
            columns.append(col)
        return replace(self, columns=tuple(columns))

    def empty(self) -> pd.DataFrame:
        """A frame with no rows and every fixed column typed."""
        return pd.DataFrame({n: pd.Series([], dtype=d) for n, d in self.dtypes().items()})  # type: ignore[call-overload]


def _c(
    name: str, dtype: object, enum: type[IntEnum] | None = None, *, ms_field: str | None = None
) -> Column:
    return Column(name, dtype, enum, ms_field)


USER = FrameSchema(
    "user",
    (
        _c("user_id", STRING),
        _c("identity_id", STRING),
        _c("area_code", STRING),
        _c("phone", STRING),
        _c("nick_name", STRING),
        _c("avatar", STRING),
        _c("status", INT, enums.UserStatus),
        _c("network.ssid", STRING),
        _c("gmt_register", TIME),
        _c("gmt_modified", TIME),
        _c("gmt_last_login", TIME),
        _c("gmt_logout", TIME),
    ),
    key=("user_id",),
)

LOGIN = FrameSchema(
    "login",
    (
        _c("user_id", STRING),
        _c("nick_name", STRING),
        _c("gmt_last_login", TIME),
        _c("network.ssid", STRING),
        _c("openid", STRING),
        _c("expires_at", TIME),
    ),
    key=("user_id",),
)

TOKEN = FrameSchema(
    "token",
    (_c("openid", STRING), _c("expires_in", INT), _c("expires_at", TIME)),
    key=("openid",),
)

SETTINGS = FrameSchema(
    "settings",
    (
        _c("user_id", STRING),
        _c("dev_config.page_size", INT),
        _c("message_config.recv_sys_notice", BOOL),
        _c("message_config.recv_device_notice", BOOL),
        _c("message_config.no_disturbing", BOOL),
        _c("message_config.start", INT),
        _c("message_config.end", INT),
        _c("message_config.unread_notice_num", INT),
        _c("gmt_modified", TIME),
    ),
    key=("user_id",),
)

CATEGORY = FrameSchema(
    "category",
    (_c("category_id", INT), _c("category_name", STRING), _c("category_icon", STRING)),
    key=("category_id",),
    order=("category_id",),
)

PRODUCT = FrameSchema(
    "product",
    (
        _c("product_id", STRING),
        _c("product_name", STRING),
        _c("product_icon", STRING),
        _c("category_id", INT),
        _c("category_name", STRING),
        _c("vendor_type", INT),
        _c("net_type", INT, enums.NetType),
        _c("encrypt_type", INT, enums.EncryptType),
        _c("node_type", INT, enums.NodeType),
        _c("status", INT, enums.ProductStatus),
        _c("popular", INT, enums.Popular),
        _c("gmt_create", TIME),
        _c("gmt_modified", TIME),
    ),
    key=("product_id",),
    order=("category_id", "product_id"),
)

DEVICE = FrameSchema(
    "device",
    (
        _c("device_id", STRING),
        _c("user_id", STRING),
        _c("nick_name", STRING),
        _c("product_id", STRING),
        _c("category_id", STRING),  # a string on devices (spec §2)
        _c("mac_addr", STRING),
        _c("sdk_version", STRING),
        _c("version", STRING),
        _c("net_addr", STRING),
        _c("status", INT, enums.DeviceStatus),
        _c("owned", INT, enums.Owned),
        _c("group_id", INT),
        _c("is_sub_device", BOOL),
        _c("gmt_bind", TIME),
        _c("gmt_last_seen", TIME),
    ),
    key=("device_id",),
    order=("gmt_bind", "device_id"),
    open_objects=("properties",),
)

EVENT = FrameSchema(
    "event",
    (
        _c("event_id", STRING),
        _c("gmt_create", TIME, ms_field="ts"),  # ts: protocol §6.8 extension
        _c("device_id", STRING),
        _c("user_id", STRING),
        _c("event_type", INT, enums.EventType),
        _c("code", STRING),
    ),
    key=("event_id",),
    # The platform orders events by (gmt_create in milliseconds, event_id) but shows
    # gmt_create to the second. With its ts (ms) a read checks and restores that exact
    # order (opslib.client.frames.build.dedupe_and_sort); without, sorting by the shown
    # second alone (stably) keeps the pages' order, e.g. an "offline" right after an
    # "online" in one second.
    order=("gmt_create",),
    open_objects=("properties",),
    # Several users' reads joined (one per user, opslib.client._fanout): the platform's
    # order is known within each read only, so each second's events go by user, each
    # user's as its read gave them, whatever order the users were given in. The store
    # joins the days of its per-user queries alike (opslib.client.stored.join_days).
    joined_order=("gmt_create", "user_id"),
)

# Writes: one row per item written, with the item's key columns after these.
WRITE_RESULT = (
    _c("ok", BOOL),
    _c("error_code", INT),
    _c("error_msg", STRING),
    _c("message_id", STRING),
)


def write_schema(name: str, *key: Column) -> FrameSchema:
    """The frame of a write: the item's key columns, then ok/error_code/error_msg/message_id."""
    return FrameSchema(f"{name}_result", (*key, *WRITE_RESULT), key=tuple(c.name for c in key))


SEND_CODE_RESULT = write_schema(
    "send_code",
    _c("area_code", STRING),
    _c("phone", STRING),
    _c("code_model", INT, enums.CodeModel),
)
REGISTER_RESULT = write_schema(
    "register", _c("user_id", STRING), _c("area_code", STRING), _c("phone", STRING)
)
PASSWORD_RESULT = write_schema("password", _c("user_id", STRING))
USER_UPDATE_RESULT = write_schema("user_update", _c("user_id", STRING))
SETTINGS_UPDATE_RESULT = write_schema("settings_update", _c("user_id", STRING))
PRODUCT_WRITE_RESULT = write_schema("product_write", _c("product_id", STRING))
DEVICE_WRITE_RESULT = write_schema("device_write", _c("device_id", STRING))

ALL: dict[str, FrameSchema] = {
    s.name: s
    for s in (
        USER,
        LOGIN,
        TOKEN,
        SETTINGS,
        CATEGORY,
        PRODUCT,
        DEVICE,
        EVENT,
        SEND_CODE_RESULT,
        REGISTER_RESULT,
        PASSWORD_RESULT,
        USER_UPDATE_RESULT,
        SETTINGS_UPDATE_RESULT,
        PRODUCT_WRITE_RESULT,
        DEVICE_WRITE_RESULT,
    )
}


SECRET_FIELDS = frozenset({"device_secret", "product_secret"})
"""The fields every dialect treats as secret; a dialect may name more."""

# The secret each frame may carry when the caller asks for it.
_SCHEMA_SECRETS = {"device": ("device_secret",), "product": ("product_secret",)}


def with_secrets(schema: FrameSchema) -> FrameSchema:
    """``schema`` with its secret fields added as string columns (``include_secrets=True``).

    >>> "device_secret" in with_secrets(DEVICE).dtypes()
    True
    """
    extra = tuple(
        Column(name, STRING)
        for name in _SCHEMA_SECRETS.get(schema.name, ())
        if name not in {c.name for c in schema.columns}
    )
    if not extra:
        return schema
    return FrameSchema(
        schema.name, (*schema.columns, *extra), schema.key, schema.order, schema.open_objects
    )
