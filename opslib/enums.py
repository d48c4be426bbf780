"""Integer selectors and statuses of the platform, as ``IntEnum``s.

The spec leaves every value's meaning "not shown"; ``docs/protocol.md`` fixes them and
this module is their single source for the server, the client and the notebooks.

>>> from opslib.enums import EventType
>>> EventType(4).label
'alarm'
"""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "AuthModel",
    "CodeModel",
    "DeviceStatus",
    "EncryptType",
    "EventType",
    "LoginModel",
    "NetType",
    "NodeType",
    "Owned",
    "Popular",
    "ProductStatus",
    "RecordQueryModel",
    "Role",
    "SettingQueryModel",
    "UpdateModel",
    "UserQueryModel",
    "UserStatus",
    "labels",
]


class _Labelled(IntEnum):
    """An IntEnum whose members have a readable lower-case label."""

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


class AuthModel(_Labelled):
    """``/user/auth_code`` auth_model: send a code or verify one."""

    SEND = 1
    VERIFY = 2


class CodeModel(_Labelled):
    """What an SMS code is for (code_model)."""

    REGISTER = 1
    LOGIN = 2
    RESET_PASSWORD = 3


class LoginModel(_Labelled):
    """``/user/login`` login_model."""

    PASSWORD = 1
    SMS_CODE = 2


class UserQueryModel(_Labelled):
    """``/user/query`` query_model."""

    BY_USER_ID = 1
    BY_PHONE = 2
    BY_IDENTITY_ID = 3


class RecordQueryModel(_Labelled):
    """``/device/query_record`` query_model."""

    DEVICE = 1
    USER = 2
    FLEET = 3


class SettingQueryModel(_Labelled):
    """``/user/query_sys_setting`` query_model."""

    ALL = 1
    MESSAGE = 2
    DEVICE = 3


class UpdateModel(_Labelled):
    """``/user/update_pwd`` update_model."""

    CHANGE = 1
    RESET = 2


class Owned(_Labelled):
    """A user's relation to a bound device."""

    SHARED = 0
    OWNER = 1


class EventType(_Labelled):
    """Device event record types."""

    ONLINE = 1
    OFFLINE = 2
    PROPERTY_REPORT = 3
    ALARM = 4
    COMMAND = 5
    FIRMWARE_UPGRADE = 6


class UserStatus(_Labelled):
    ACTIVE = 1
    LOCKED = 2
    DISABLED = 3


class DeviceStatus(_Labelled):
    INACTIVE = 0
    ONLINE = 1
    OFFLINE = 2
    FAULT = 3


class ProductStatus(_Labelled):
    DEVELOPING = 0
    RELEASED = 1
    RETIRED = 2


class NetType(_Labelled):
    WIFI = 1
    BLE = 2
    ZIGBEE = 3
    CELLULAR = 4
    ETHERNET = 5

    @property
    def label(self) -> str:
        return {1: "Wi-Fi", 2: "BLE", 3: "Zigbee", 4: "cellular", 5: "Ethernet"}[self.value]


class NodeType(_Labelled):
    DIRECT = 1
    GATEWAY = 2
    SUB_DEVICE = 3


class EncryptType(_Labelled):
    NONE = 0
    AES_128 = 1
    TLS = 2

    @property
    def label(self) -> str:
        return {0: "none", 1: "AES-128", 2: "TLS"}[self.value]


class Popular(_Labelled):
    NO = 0
    YES = 1


class Role(_Labelled):
    """Caller roles (an extension): ops reads everything, admin also edits the products."""

    USER = 1
    OPS = 2
    ADMIN = 3


def labels(enum: type[IntEnum]) -> dict[int, str]:
    """Map every value of ``enum`` to its readable label.

    >>> labels(DeviceStatus)[1]
    'online'
    """
    return {int(m): getattr(m, "label", m.name.lower()) for m in enum}
