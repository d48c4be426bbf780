"""Secrets a platform may send in its reads, kept out of frames unless asked for.

Some platforms answer device and product reads with the device's or the product's secret
(``device_secret``, ``product_secret``). A frame travels far (notebook outputs, HTML
reports, exports), so a read drops every column named by a secret field, top level or as
the last part of a dotted column (``properties.device_secret``), unless the caller passes
``include_secrets=True``; then the secret fields the schema names become string columns.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from opslib.client._schemas import STRING, Column, FrameSchema

__all__ = ["SECRET_FIELDS", "drop_secrets", "secret_columns", "with_secrets"]

SECRET_FIELDS = frozenset({"device_secret", "product_secret"})
"""The fields every dialect treats as secret; a dialect may name more."""

# The secret each frame may carry when the caller asks for it.
_SCHEMA_SECRETS = {"device": ("device_secret",), "product": ("product_secret",)}


def secret_columns(columns: Iterable[str], secrets: Iterable[str]) -> list[str]:
    """The columns named by a secret: ``device_secret`` or ``properties.device_secret``."""
    names = frozenset(secrets)
    return [c for c in columns if c in names or c.rsplit(".", 1)[-1] in names]


def drop_secrets(frame: pd.DataFrame, secrets: Iterable[str]) -> pd.DataFrame:
    """``frame`` without its secret columns (the same object when it has none)."""
    found = secret_columns(frame.columns, secrets)
    return frame.drop(columns=found) if found else frame


def with_secrets(schema: FrameSchema) -> FrameSchema:
    """``schema`` with its secret fields added as string columns (``include_secrets=True``)."""
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
