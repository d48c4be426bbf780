"""Field types of the request models (protocol §5): lengths, patterns, ranges, enums.

Enumerations are plain integers checked against their set, because pydantic's enum type
accepts ``true`` for ``1`` even in strict mode. ``PATTERN_HINTS`` says in words what each
pattern means, for error messages a person can act on.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Annotated, Any

import orjson
from pydantic import AfterValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from opslib import enums

MAX_INT32 = 2**31 - 1
MAX_MS = 2**53

UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
# What each pattern means, for error messages a person can act on.
PATTERN_HINTS = {
    UUID_PATTERN: "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
    r"^0*[1-9][0-9]{0,3}$": "1 to 4 digits after any leading zeros, no '+'",
    r"^0*[1-9][0-9]{3,14}$": "4 to 15 digits after any leading zeros",
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


def strip_zeros(digits: str) -> str:
    """A phone number's part without leading zeros: ``"001"`` and ``"1"`` are one area code,
    ``"05550001"`` and ``"5550001"`` one phone (the national trunk prefix), so throttles,
    lookups and storage see one number (protocol §5).

    Examples
    --------
    >>> strip_zeros("0086"), strip_zeros("0"), strip_zeros("5550001")
    ('86', '0', '5550001')
    """
    return digits.lstrip("0") or "0"


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
AreaCode = Annotated[
    str, Field(max_length=5, pattern=r"^0*[1-9][0-9]{0,3}$"), AfterValidator(strip_zeros)
]
Phone = Annotated[
    str, Field(max_length=16, pattern=r"^0*[1-9][0-9]{3,14}$"), AfterValidator(strip_zeros)
]
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


def needs(field: str, condition: str) -> PydanticCustomError:
    """The error of a conditionally required field (its name goes into ``ctx``)."""
    return PydanticCustomError(
        "required_when", "required when {condition}", {"field": field, "condition": condition}
    )


def when(field: str, value: int, *required: str) -> dict[str, Any]:
    """JSON Schema for "``required`` are required when ``field`` is ``value``" (OpenAPI)."""
    return {
        "if": {"properties": {field: {"const": value}}, "required": [field]},
        "then": {"required": list(required)},
    }


def conditions(*rules: dict[str, Any]) -> ConfigDict:
    """Model config adding ``when`` rules to the model's JSON Schema."""
    return ConfigDict(json_schema_extra={"allOf": list(rules)})


def any_of(*fields: str) -> ConfigDict:
    """Model config: the JSON Schema requires at least one of ``fields``."""
    return ConfigDict(json_schema_extra={"anyOf": [{"required": [f]} for f in fields]})
