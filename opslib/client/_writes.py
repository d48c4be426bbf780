"""Writes of one item or many: a result row per item, and what to do when some fail.

Bulk writes take a DataFrame, a list of dicts (or of ids) and report per row: ``ok``,
``error_code``, ``error_msg``, ``message_id`` and the item's key. ``errors="raise"`` (the
default for a single item) raises the item's own error; for several items it writes every
row, then raises :class:`~opslib.BulkWriteError` naming the rows that failed, with the whole
result frame attached. ``errors="collect"`` (the default for bulk) returns the frame.
Each item has its own message_id, reused by every retry of that item.

Every item is checked before the first is sent (:func:`check_item`: the parameters the
platform's dialect requires, the JSON type the spec gives each parameter). Under
``errors="collect"`` a refused item is a row like a failed one (``ok`` False, the reason,
nothing sent for it, no message_id) and the others are written; under ``errors="raise"``
one refused item refuses the whole input and nothing is sent. So an exception never comes
after some rows were written without the frame saying which.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from opslib._missing import is_missing
from opslib.client.frames.build import records_to_frame
from opslib.client.frames.schema import FrameSchema
from opslib.exceptions import APIError, BulkWriteError, OpsError, OutcomeUnknown, ProtocolError
from opslib.protocol.codec import Codec
from opslib.protocol.operations import Operation

__all__ = [
    "Errors",
    "check_errors",
    "check_item",
    "ids_from",
    "items_from",
    "native",
    "run_writes",
]

log = logging.getLogger("opslib")

Errors = Literal["raise", "collect"]
_SHOWN_FAILURES = 5


def check_errors(errors: str | None, *, bulk: bool) -> Errors:
    """Resolve ``errors``: None → "collect" for bulk, "raise" for one item."""
    if errors is None:
        return "collect" if bulk else "raise"
    if errors not in ("raise", "collect"):
        raise ValueError(f"errors must be 'raise' or 'collect', got {errors!r}")
    return errors  # type: ignore[return-value]


def native(value: Any) -> Any:
    """A JSON-ready Python value: numpy/pandas scalars unwrapped, NA → None."""
    if is_missing(value):
        return None
    return value.item() if isinstance(value, np.generic) else value


def check_item(codec: Codec, operation: Operation, params: Mapping[str, Any]) -> dict[str, Any]:
    """One item of a write, checked before anything is sent: the platform's codec encodes
    it (every parameter the dialect requires is there, except those the client adds itself;
    each parameter has the JSON type the spec gives it), or ValueError naming the field, the
    value and what is allowed. The item is returned with each parameter as the spec types
    it (``2.0`` for an integer is 2); it is encoded when sent.

    Examples
    --------
    >>> from opslib.protocol import Codec, operations as ops
    >>> check_item(Codec(), ops.DELETE_PRODUCT, {"product_id": "p-1"})
    {'product_id': 'p-1'}
    >>> check_item(Codec(), ops.DELETE_PRODUCT, {"product_id": 5})
    Traceback (most recent call last):
    ...
    ValueError: /product/delete: product_id is 5 (int); allowed: a string
    """
    codec.encode_params(
        operation, params, user_id="(the caller)", client_id="(the client)", validate=True
    )
    return codec.typed(operation, params)


def items_from(
    data: pd.DataFrame | Mapping[str, Any] | Iterable[Mapping[str, Any]],
    *,
    allowed: Sequence[str],
    what: str,
) -> tuple[list[dict[str, Any]], bool]:
    """Items to write and whether the input was bulk; unknown fields are refused up front.

    NA cells are left out of the item (the platform's default applies).
    """
    if isinstance(data, pd.DataFrame):
        rows: Sequence[Mapping[Any, Any]] = data.to_dict(orient="records")
        bulk = True
    elif isinstance(data, Mapping):
        rows, bulk = [data], False
    else:
        rows, bulk = [*data], True
    items: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"{what}: item {i} is a {type(row).__name__}, not a mapping")
        unknown = sorted(set(row) - set(allowed))
        if unknown:
            raise ValueError(
                f"{what}: unknown field(s) {unknown} in item {i}; allowed: {sorted(allowed)}"
            )
        items.append({str(k): native(v) for k, v in row.items() if native(v) is not None})
    return items, bulk


def ids_from(
    data: str | Iterable[Any] | pd.Series | pd.DataFrame, *, key: str, what: str
) -> tuple[list[str], bool]:
    """The ids of a write by id and whether the input was bulk: one id, or a list, Series or
    DataFrame (its ``key`` column) of them. An id that is not a non-empty string (None,
    NaN, a number) is refused, naming it, before anything is sent.

    Examples
    --------
    >>> ids_from(["p-1", "p-2"], key="product_id", what="products.delete")
    (['p-1', 'p-2'], True)
    >>> ids_from(["p-1", None], key="product_id", what="delete")
    Traceback (most recent call last):
    ...
    ValueError: delete: item 1 is None; allowed: a product_id (a non-empty string). Nothing...
    """
    if isinstance(data, str):
        data, bulk = [data], False
    elif isinstance(data, pd.DataFrame):
        if key not in data.columns:
            raise ValueError(
                f"{what}: the DataFrame has no {key} column; its columns: {list(data.columns)}"
            )
        data, bulk = data[key], True
    elif isinstance(data, Mapping) or not isinstance(data, Iterable):
        raise TypeError(
            f"{what}: give a {key} (str), or a list, Series or DataFrame of them; "
            f"got {type(data).__name__}"
        )
    else:
        bulk = True
    ids = list(data)
    for i, value in enumerate(ids):
        if not isinstance(value, str) or not value:
            raise ValueError(
                f"{what}: item {i} is {value!r}; allowed: a {key} (a non-empty string). "
                "Nothing was sent."
            )
    return ids, bulk


def run_writes(
    items: Sequence[dict[str, Any]],
    send: Callable[[dict[str, Any], str], Any],
    *,
    schema: FrameSchema,
    key: Callable[[dict[str, Any], Any], dict[str, Any]],
    errors: Errors,
    bulk: bool,
    what: str,
    check: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """Check every item, then send each with its own message_id; build the result frame.

    Parameters
    ----------
    items
        The items' params.
    send
        ``send(params, message_id)`` performs one write and returns the decoded answer.
    schema
        The result frame's schema (key columns, then ok/error_code/error_msg/message_id).
    key
        ``key(params, answer)`` → the key columns of the item's row (answer None on failure).
    errors, bulk, what
        Failure policy, whether the input was bulk, and the operation's name for messages.
    check
        ``check(params)`` → the item as sent, or ValueError naming why the platform would
        refuse it (:func:`check_item`); every item is checked before the first is sent.
    """
    items, refused = _checked(items, check, errors=errors, what=what)
    rows: list[dict[str, Any]] = []
    failures: list[tuple[int, OpsError]] = []
    for i, params in enumerate(items):
        if i in refused:
            rows.append(
                {
                    **key(params, None),
                    "ok": False,
                    "error_code": None,
                    "error_msg": refused[i],
                    "message_id": None,
                }
            )
            continue
        message_id = str(uuid.uuid4())
        try:
            answer = send(params, message_id)
        except (APIError, OutcomeUnknown, ProtocolError) as exc:
            if errors == "raise" and not bulk:
                raise
            failures.append((i, exc))
            code = exc.code if isinstance(exc, APIError) else None
            text = exc.error_msg if isinstance(exc, APIError) else str(exc)
            rows.append(
                {
                    **key(params, None),
                    "ok": False,
                    "error_code": code,
                    "error_msg": text,
                    "message_id": message_id,
                }
            )
            continue
        rows.append(
            {
                **key(params, answer),
                "ok": True,
                "error_code": 200,
                "error_msg": "",
                "message_id": message_id,
            }
        )
    frame = records_to_frame(rows, schema)
    if failures and errors == "raise":
        shown = "; ".join(
            f"row {i} ({_describe(frame, i, schema)}): {_reason(exc)}"
            for i, exc in failures[:_SHOWN_FAILURES]
        )
        more = (
            f"; and {len(failures) - _SHOWN_FAILURES} more"
            if len(failures) > _SHOWN_FAILURES
            else ""
        )
        raise BulkWriteError(
            f"{what}: {len(failures)} of {len(items)} rows failed: {shown}{more}. "
            "The other rows were written; .results holds every row.",
            results=frame,
        ) from failures[0][1]
    if failures or refused:
        log.debug(
            "%s: %d of %d rows failed, %d refused before sending (collected)",
            what,
            len(failures),
            len(items),
            len(refused),
        )
    return frame


def _checked(
    items: Sequence[dict[str, Any]],
    check: Callable[[dict[str, Any]], dict[str, Any]] | None,
    *,
    errors: Errors,
    what: str,
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """Every item checked before any is sent: the items as sent, and the refused ones'
    reasons by index. Under ``errors="raise"`` one refusal raises ValueError naming every
    refused item, and nothing is sent."""
    if check is None:
        return list(items), {}
    out: list[dict[str, Any]] = []
    refused: dict[int, str] = {}
    for i, params in enumerate(items):
        try:
            out.append(check(params))
        except ValueError as exc:
            out.append(params)
            refused[i] = str(exc)
    if refused and errors == "raise":
        shown = "; ".join(f"item {i}: {why}" for i, why in list(refused.items())[:_SHOWN_FAILURES])
        more = (
            f"; and {len(refused) - _SHOWN_FAILURES} more" if len(refused) > _SHOWN_FAILURES else ""
        )
        raise ValueError(
            f"{what}: {len(refused)} of {len(items)} items refused before sending: "
            f"{shown}{more}. Nothing was sent."
        )
    return out, refused


def _describe(frame: pd.DataFrame, i: int, schema: FrameSchema) -> str:
    return ", ".join(f"{k}={frame.at[i, k]!r}" for k in schema.key) or f"index {i}"


def _reason(exc: OpsError) -> str:
    if isinstance(exc, APIError):
        return f"{exc.code} {exc.error_msg}"
    if isinstance(exc, ProtocolError):
        return str(exc)
    return type(exc).__name__
