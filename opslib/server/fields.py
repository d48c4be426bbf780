"""Field types of the request models (protocol §5): lengths, patterns, ranges, enums.

Enumerations are plain integers checked against their set, because pydantic's enum type
accepts ``true`` for ``1`` even in strict mode. ``PATTERN_HINTS`` says in words what each
pattern means, for error messages a person can act on.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Annotated, Any

import orjson
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from opslib import enums
from opslib.server.security import Secret, SecretText

MAX_INT32 = 2**31 - 1
MAX_MS = 2**53
# The last moment an event may have: 9999-12-31 23:59:59.999 UTC, the last that SQLite's
# datetime() (which writes gmt_create) and a 4-digit year show.
MAX_EVENT_MS = 253_402_300_799_999

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


# Numbers in device properties: what orjson (and the client's frames) hold exactly.
PROPERTY_MIN = -(2**63)
PROPERTY_MAX = 2**64 - 1
PROPERTY_VALUE = "PropertyValue"  # the OpenAPI component of one property value
PROPERTY_VALUE_SCHEMA: dict[str, Any] = {
    "description": "a JSON value whose numbers lie within -2**63 .. 2**64-1",
    "anyOf": [
        {"type": "string"},
        {"type": "boolean"},
        {"type": "null"},
        {"type": "number", "minimum": PROPERTY_MIN, "maximum": PROPERTY_MAX},
        {"type": "array", "items": {"$ref": f"#/components/schemas/{PROPERTY_VALUE}"}},
        {
            "type": "object",
            "additionalProperties": {"$ref": f"#/components/schemas/{PROPERTY_VALUE}"},
        },
    ],
}


def _numbers_in_range(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif (
            isinstance(item, int | float)
            and not isinstance(item, bool)
            and not PROPERTY_MIN <= item <= PROPERTY_MAX
        ):
            return False
    return True


def _json_object_max(max_bytes: int) -> AfterValidator:
    def check(value: dict[str, Any]) -> dict[str, Any]:
        if not _numbers_in_range(value):
            raise PydanticCustomError("json_range", "must hold only numbers from -2**63 to 2**64-1")
        size = len(orjson.dumps(value))
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


def _whole(value: Any) -> Any:
    """A JSON number without a fraction is that integer (``5.0`` is ``5``, as in JSON
    Schema); ``5.5``, strings and booleans are left for the integer check to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Whole = BeforeValidator(_whole)


MessageId = Annotated[str, _pattern(UUID_PATTERN)]
EnvelopeUserId = Annotated[str, _text(0, 64)]
ClientId = Annotated[str, _text(1, 64)]
# Secrets are held as security.Secret (a repr that hides them) from validation on.
Token = Annotated[Secret, SecretText(1, 256)]
OptionalToken = Annotated[Secret, SecretText(0, 256)]  # ignored on pre-login operations
AreaCode = Annotated[
    str, Field(max_length=5, pattern=r"^0*[1-9][0-9]{0,3}$"), AfterValidator(strip_zeros)
]
Phone = Annotated[
    str, Field(max_length=16, pattern=r"^0*[1-9][0-9]{3,14}$"), AfterValidator(strip_zeros)
]
SmsCode = Annotated[Secret, SecretText(pattern=r"^[0-9]{6}$")]
Password = Annotated[Secret, SecretText(8, 128)]
NickName = Annotated[str, _text(0, 64)]
Url = Annotated[str, _text(0, 512)]
IdentityId = Annotated[str, _pattern(r"^[A-Za-z0-9_.-]{1,64}$")]
UserId = Annotated[str, _text(1, 64)]
ListedUserId = Annotated[str, _text(0, 64)]  # "" is the whole fleet
DeviceId = Annotated[str, _pattern(r"^[A-Za-z0-9_.:-]{1,64}$")]
SharedSecret = Annotated[Secret, SecretText(8, 128)]  # device_secret, product_secret
MacAddr = Annotated[str, _pattern(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")]
Version = Annotated[str, _text(1, 32)]
NetAddr = Annotated[str, _text(0, 64)]
Ssid = Annotated[str, _text(0, 32)]
WifiPassword = Annotated[str, _text(0, 63)]
ProductId = Annotated[str, _pattern(r"^[A-Za-z0-9_.-]{1,64}$")]
Name = Annotated[str, _text(1, 128)]
CategoryId = Annotated[int, _range(1, MAX_INT32), Whole]
CategoryIdText = Annotated[str, _pattern(r"^[1-9][0-9]{0,9}$")]
GroupId = Annotated[int, _range(0, MAX_INT32), Whole]
VendorType = Annotated[int, _range(0, 99), Whole]
PageNo = Annotated[int, _range(1, MAX_INT32), Whole]
PageSize = Annotated[int, _range(1, 1000), Whole]
EpochMs = Annotated[int, _range(0, MAX_MS), Whole]
Minute = Annotated[int, _range(0, 1439), Whole]


def _event_moment(value: int) -> int:
    if not 0 <= value <= MAX_EVENT_MS:
        raise PydanticCustomError(
            "event_moment",
            "must be epoch milliseconds from 0 (1970-01-01 00:00:00 UTC) to {last}"
            " (9999-12-31 23:59:59.999 UTC), got {got}",
            {"last": MAX_EVENT_MS, "got": value},
        )
    return value


# An event's moment: refused outside what gmt_create can show (the bounds are stated to
# JSON Schema too, the check gives the sentence).
EventMs = Annotated[
    int,
    Field(json_schema_extra={"minimum": 0, "maximum": MAX_EVENT_MS}),
    Whole,
    AfterValidator(_event_moment),
]
EventCode = Annotated[str, _text(0, 32)]
Properties = Annotated[
    dict[str, Any],
    _json_object_max(8192),
    Field(
        description="at most 8192 bytes encoded as JSON",
        # a reference the OpenAPI document resolves (app._install_openapi): pydantic
        # would try to resolve a "$ref" among its own models
        json_schema_extra={"additionalProperties": {"x-component": PROPERTY_VALUE}},
    ),
]

AuthModelValue = Annotated[int, _member_of(enums.AuthModel), _values(enums.AuthModel), Whole]
CodeModelValue = Annotated[int, _member_of(enums.CodeModel), _values(enums.CodeModel), Whole]
LoginModelValue = Annotated[int, _member_of(enums.LoginModel), _values(enums.LoginModel), Whole]
UserQueryModelValue = Annotated[
    int, _member_of(enums.UserQueryModel), _values(enums.UserQueryModel), Whole
]
RecordQueryModelValue = Annotated[
    int, _member_of(enums.RecordQueryModel), _values(enums.RecordQueryModel), Whole
]
SettingQueryModelValue = Annotated[
    int, _member_of(enums.SettingQueryModel), _values(enums.SettingQueryModel), Whole
]
UpdateModelValue = Annotated[int, _member_of(enums.UpdateModel), _values(enums.UpdateModel), Whole]
OwnedValue = Annotated[int, _member_of(enums.Owned), _values(enums.Owned), Whole]
EventTypeValue = Annotated[int, _member_of(enums.EventType), _values(enums.EventType), Whole]
DeviceStatusValue = Annotated[
    int, _member_of(enums.DeviceStatus), _values(enums.DeviceStatus), Whole
]
NetTypeValue = Annotated[int, _member_of(enums.NetType), _values(enums.NetType), Whole]
NodeTypeValue = Annotated[int, _member_of(enums.NodeType), _values(enums.NodeType), Whole]
EncryptTypeValue = Annotated[int, _member_of(enums.EncryptType), _values(enums.EncryptType), Whole]
ProductStatusValue = Annotated[
    int, _member_of(enums.ProductStatus), _values(enums.ProductStatus), Whole
]
PopularValue = Annotated[int, _member_of(enums.Popular), _values(enums.Popular), Whole]


def needs(field: str, condition: str) -> PydanticCustomError:
    """The error of a conditionally required field (its name goes into ``ctx``)."""
    return PydanticCustomError(
        "required_when", "required when {condition}", {"field": field, "condition": condition}
    )


_NOT_NULL = {"not": {"type": "null"}}  # a field given as null counts as absent


def when(field: str, value: int, *required: str) -> dict[str, Any]:
    """JSON Schema for "``required`` are required (and not null) when ``field`` is
    ``value``" (OpenAPI)."""
    return {
        "if": {"properties": {field: {"const": value}}, "required": [field]},
        "then": {"required": list(required), "properties": dict.fromkeys(required, _NOT_NULL)},
    }


def conditions(*rules: dict[str, Any]) -> ConfigDict:
    """Model config adding ``when`` rules to the model's JSON Schema."""
    return ConfigDict(json_schema_extra={"allOf": list(rules)})


def any_of(*fields: str) -> ConfigDict:
    """Model config: the JSON Schema requires at least one of ``fields``, not null."""
    rules: list[Any] = [{"required": [f], "properties": {f: _NOT_NULL}} for f in fields]
    return ConfigDict(json_schema_extra={"anyOf": rules})
