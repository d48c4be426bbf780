"""What a resource test expects of the platform's dialect (``platform.dialect``).

The same test runs under ``opslib``, ``vendor`` and ``chint``: these helpers give the
dialect's frame dtypes (its ``*_name`` categories), its labels for coded inputs, the fields
that dialect requires on writes, and whether it has a whole-fleet read.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

import opslib
from opslib.client.frames import schema as S
from opslib.dialects import Dialect
from opslib.protocol import Codec

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def dialect(platform: ServedPlatform) -> Dialect:
    """The dialect ``platform`` speaks."""
    return Dialect() if platform.dialect is None else Dialect.named(platform.dialect)


def empty(schema: S.FrameSchema, platform: ServedPlatform) -> pd.DataFrame:
    """``schema``'s empty frame with the ``*_name`` categories of the platform's dialect."""
    return schema.labelled(Codec(dialect(platform)).labels).empty()


def has_fleet(platform: ServedPlatform) -> bool:
    """Whether the platform reads the whole fleet in one query (chint: per user only)."""
    return dialect(platform).capabilities.fleet_events


def owners(platform: ServedPlatform) -> list[str]:
    """The users with devices bound (owned or shared) in the platform's database, sorted."""
    con = sqlite3.connect(platform.db)
    try:
        rows = con.execute("SELECT DISTINCT user_id FROM bindings ORDER BY user_id").fetchall()
    finally:
        con.close()
    return [str(r[0]) for r in rows]


def product_fields(platform: ServedPlatform, **over: Any) -> dict[str, Any]:
    """The coded fields of a new product, as the platform's dialect labels them (chint
    requires vendor_type, encrypt_type, status and popular)."""
    if platform.dialect == "chint":
        fields = {
            "node_type": "device",
            "vendor_type": "in-house",
            "encrypt_type": "one secret per product",
            "status": "developing",
            "popular": "normal",
        }
    else:
        fields = {"node_type": "direct"}
    return {**fields, **over}


def fleet_devices(client: Any, platform: ServedPlatform, **kwargs: Any) -> pd.DataFrame:
    """``client.devices.list(**kwargs)`` over the whole fleet; on a platform without a fleet
    read, first that it raises ``opslib.Unsupported`` naming ``users=`` (nothing sent), then
    the same read per device owner (``users=``)."""
    if has_fleet(platform):
        return client.devices.list(**kwargs)
    with pytest.raises(opslib.Unsupported, match="users="):
        client.devices.list(**kwargs)
    return client.devices.list(users=owners(platform), **kwargs)


def fleet_events(client: Any, platform: ServedPlatform, *args: Any, **kwargs: Any) -> pd.DataFrame:
    """``client.events.list(*args, **kwargs)`` over the whole fleet, as :func:`fleet_devices`."""
    if has_fleet(platform):
        return client.events.list(*args, **kwargs)
    with pytest.raises(opslib.Unsupported, match="users="):
        client.events.list(*args, **kwargs)
    return client.events.list(*args, users=owners(platform), **kwargs)


# chint's business codes for failures our platform signals by HTTP status (its edge keeps
# our 409 for the conflicts chint documents no code for: only 8103, a phone registered)
_CHINT_CODES = {
    ("product", 404): 8110,
    ("device", 404): 8202,
    ("any", 409): 409,
    ("any", 422): 8102,  # code not usable
    ("password", 422): 8106,  # wrong password
}


def error_code(platform: ServedPlatform, status: int, about: str = "any") -> int:
    """The error_code the platform sends for a failure ours signals with ``status``."""
    if platform.dialect == "chint":
        return _CHINT_CODES.get((about, status), _CHINT_CODES.get(("any", status), status))
    return platform.code(status)


def own_devices(user: Any, platform: ServedPlatform, **kwargs: Any) -> pd.DataFrame:
    """A user's ``devices.list(**kwargs)`` of its own; where the platform requires user_id,
    first that leaving it out raises ``opslib.Unsupported`` naming it, then with user_id."""
    if has_fleet(platform):
        return user.devices.list(**kwargs)
    with pytest.raises(opslib.Unsupported, match="user_id="):
        user.devices.list(**kwargs)
    return user.devices.list(user.user_id, **kwargs)


def bind_fields(platform: ServedPlatform) -> dict[str, Any]:
    """What a device bind must carry beyond device_id, device_secret and product_id (chint
    requires mac_addr, sdk_version, version, status and category_id)."""
    if platform.dialect != "chint":
        return {}
    return {
        "mac_addr": "AA:BB:CC:DD:EE:FF",
        "sdk_version": "1.0.0",
        "version": "1.0.0",
        "status": 0,
        "category_id": 1,
    }


def own_events(user: Any, platform: ServedPlatform, *args: Any, **kwargs: Any) -> pd.DataFrame:
    """A user's own ``events.list(...)``; without a fleet query the caller's own read must
    name its user: first that leaving it out raises ``opslib.Unsupported``, then user_id=."""
    if has_fleet(platform):
        return user.events.list(*args, **kwargs)
    with pytest.raises(opslib.Unsupported, match="user_id="):
        user.events.list(*args, **kwargs)
    return user.events.list(*args, user_id=user.user_id, **kwargs)
