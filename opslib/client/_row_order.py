"""The rows of a read in the platform's order, each record once: the last step of a read.

Pages arrive in order, so a read usually only checks that it is (one pass, no hashing) and
sorts or drops duplicates only when offset paging over changing data showed a record
twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from opslib.client._schemas import FrameSchema

__all__ = ["dedupe_and_sort"]


def _is_sorted(df: pd.DataFrame, columns: Sequence[str]) -> bool:
    """Whether ``df`` is already in the order of one or two ``columns`` (without NA).

    Pages arrive in order, so this cheap check usually saves a full sort.
    """
    if len(df) < 2:
        return True
    if len(columns) > 2 or df[list(columns)].isna().to_numpy().any():
        return False
    first = df[columns[0]].array
    if len(columns) == 1:
        return bool(df[columns[0]].is_monotonic_increasing)
    ahead = np.asarray(first[1:] > first[:-1], dtype=bool)
    tied = np.asarray(first[1:] == first[:-1], dtype=bool)
    if not np.all(ahead | tied):
        return False
    if not tied.any():
        return True
    second = df[columns[1]].array
    return bool(np.all(np.asarray(second[1:] >= second[:-1], dtype=bool)[tied]))


def _has_duplicates(df: pd.DataFrame, key: Sequence[str]) -> bool:
    if len(key) == 1:
        return not df[key[0]].is_unique  # cheaper than duplicated()
    return bool(df.duplicated(subset=list(key)).any())


def _strictly_ordered(order: np.ndarray, key: Any) -> bool:
    """Whether the rows strictly increase by (``order``, ``key``): then they are in the
    platform's order and no key is there twice (one pass, no hashing)."""
    if len(order) < 2:
        return True
    step = np.diff(order)
    if (step < 0).any():
        return False
    ties = np.flatnonzero(step == 0)
    if ties.size == 0:
        return True
    keys = pa.array(key)
    if keys.null_count:
        return False
    earlier, later = keys.take(ties), keys.take(ties + 1)
    return bool(pc.all(pc.less(earlier, later)).as_py())


def _restore_order(df: pd.DataFrame, order: np.ndarray, key: str, dedupe: bool) -> pd.DataFrame:
    """Drop repeated keys (the first seen wins), then sort stably by (``order``, ``key``)."""
    if dedupe:
        keep = ~df.duplicated(subset=[key], keep="first").to_numpy()
        df, order = df.loc[keep], order[keep]
    table = pa.table({"order": order, "key": pa.array(df[key].array)})
    positions = pc.sort_indices(table, sort_keys=[("order", "ascending"), ("key", "ascending")])
    return df.take(positions.to_numpy())


def dedupe_and_sort(
    df: pd.DataFrame,
    schema: FrameSchema,
    *,
    dedupe: bool = True,
    order: np.ndarray | None = None,
) -> pd.DataFrame:
    """Drop duplicate keys (the first seen wins) and sort stably by the schema's order.

    ``order`` (from :func:`~opslib.client._frames.join_order`: each row's epoch
    milliseconds, which the platform
    sorts by before the key) makes both exact and cheap: rows strictly increasing by
    (order, key) are returned as they are, else they are sorted by (order, key), which
    also orders events within one second as the platform does.
    """
    if order is not None and len(schema.key) == 1 and len(order) == len(df):
        key = schema.key[0]
        if not _strictly_ordered(order, df[key].array):
            df = _restore_order(df, order, key, dedupe)
    else:
        if dedupe and schema.key and len(df) > 1 and _has_duplicates(df, schema.key):
            df = df.loc[~df.duplicated(subset=list(schema.key), keep="first").to_numpy()]
        if schema.order and not _is_sorted(df, schema.order):
            df = df.sort_values(list(schema.order), kind="stable", na_position="last")
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    return df
