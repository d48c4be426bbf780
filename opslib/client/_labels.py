"""The ``*_name`` labels and coded inputs by the platform's dialect.

Frames are built with our platform's labels (:mod:`opslib.enums`, declared in
:mod:`opslib.client._schemas`); where a dialect numbers a field otherwise (the CHINT smart
cloud's device status 3 is "disabled", its net_type 0 is Wi-Fi), :func:`relabel` recomputes
the label column from the codes with the dialect's labels, and :func:`code_of` reads a
value or label given by the caller as the dialect's code.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum

import pandas as pd

from opslib import enums
from opslib.client._schemas import FrameSchema
from opslib.dialects import Dialect

__all__ = ["code_of", "dialect_labels", "enum_key", "relabel", "vendor_type_code"]


def enum_key(schema_name: str, column: str) -> str:
    """The dialect's enums key of a coded column (``status`` is per object).

    >>> enum_key("device", "status"), enum_key("event", "event_type")
    ('device_status', 'event_type')
    """
    return f"{schema_name}_status" if column == "status" else column


def dialect_labels(dialect: Dialect, key: str, enum: type[IntEnum]) -> Mapping[int, str]:
    """The dialect's labels of ``key``, or ``enum``'s when the dialect names none."""
    found = dialect.enums.get(key)
    return found if found is not None else enums.labels(enum)


def _relabel_column(codes: pd.Series, labels: Mapping[int, str]) -> pd.Categorical:
    categories = list(dict.fromkeys(labels.values()))
    names = codes.astype("Int64").map(dict(labels))
    return pd.Categorical(names.astype(object).where(names.notna(), None), categories=categories)


def relabel(frame: pd.DataFrame, schema: FrameSchema, dialect: Dialect) -> pd.DataFrame:
    """``frame`` with each ``*_name`` column labelled by the dialect (unchanged when the
    dialect labels as our platform does)."""
    for col in schema.columns:
        if col.enum is None or col.label_name not in frame.columns:
            continue
        labels = dialect_labels(dialect, enum_key(schema.name, col.name), col.enum)
        if dict(labels) == enums.labels(col.enum):
            continue
        frame[col.label_name] = _relabel_column(frame[col.name], labels)
    return frame


def code_of(
    value: int | str | IntEnum,
    dialect: Dialect,
    key: str,
    enum: type[IntEnum] | None,
    field: str,
) -> int:
    """The dialect's code for a value given as its code or its label (``"Wi-Fi"``).

    Raises
    ------
    ValueError
        Naming the field and the allowed values.

    Examples
    --------
    >>> code_of("Wi-Fi", Dialect.named("chint"), "net_type", enums.NetType, "net_type")
    0
    """
    labels = dialect.enums.get(key, {}) if enum is None else dialect_labels(dialect, key, enum)
    if isinstance(value, IntEnum) and (enum is None or dict(labels) != enums.labels(enum)):
        value = getattr(value, "label", value.name.lower())
    if isinstance(value, int) and not isinstance(value, bool) and int(value) in labels:
        return int(value)
    if isinstance(value, str):
        wanted = value.strip().lower().replace("_", " ")
        if wanted.isdigit() and int(wanted) in labels:
            return int(wanted)
        for code, label in labels.items():
            if wanted == label.lower().replace("_", " "):
                return int(code)
    allowed = ", ".join(f"{code} ({label})" for code, label in labels.items())
    raise ValueError(f"{field} must be one of {allowed}; got {value!r}")


def vendor_type_code(value: int | str, dialect: Dialect) -> int:
    """A product's vendor_type as the platform's code: its label where the dialect names
    vendor types (the CHINT smart cloud: 0 in-house, 1 partner ecosystem), else the integer
    itself (ours: the operator's own classes, checked by the platform).

    Raises
    ------
    ValueError
        Naming the field, the value and what is allowed.

    Examples
    --------
    >>> vendor_type_code("partner ecosystem", Dialect.named("chint"))
    1
    >>> vendor_type_code(42, Dialect())
    42
    """
    if "vendor_type" in dialect.enums:
        return code_of(value, dialect, "vendor_type", None, "vendor_type")
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise ValueError(
        f"vendor_type must be an integer (the {dialect.name} platform names no vendor types, "
        f"its classes are the operator's own); got {value!r}"
    )
