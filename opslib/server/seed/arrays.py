"""Array types and the small vectorised helpers the stages share (ids, JSON, positions)."""

from __future__ import annotations

from typing import Any

import numpy as np

from opslib.server.seed.scales import HOUR_MS, LOCAL_UTC_OFFSET_H

__all__ = [
    "I64",
    "BoolArray",
    "FloatArray",
    "IntArray",
    "ObjArray",
    "hex16",
    "json_bool",
    "last_positions",
    "local_hour",
    "obj",
    "scramble",
    "unique_ids",
]

I64 = np.int64
IntArray = np.ndarray[Any, np.dtype[np.int64]]
FloatArray = np.ndarray[Any, np.dtype[np.float64]]
BoolArray = np.ndarray[Any, np.dtype[np.bool_]]
ObjArray = np.ndarray[Any, np.dtype[np.object_]]


def unique_ids(rng: np.random.Generator, n: int, prefix: str, hex_digits: int) -> list[str]:
    """``n`` distinct ids ``prefix`` + ``hex_digits`` hex digits drawn from ``rng``."""
    values = rng.choice(1 << (4 * hex_digits), size=n, replace=False)
    return [f"{prefix}{v:0{hex_digits}x}" for v in values.tolist()]


def scramble(seq: np.ndarray[Any, np.dtype[np.uint64]], key: np.uint64) -> np.ndarray[Any, Any]:
    """A bijection of uint64 (splitmix64's finaliser): distinct inputs, distinct ids."""
    z = seq + key
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def hex16(values: np.ndarray[Any, Any], prefix: str) -> list[str]:
    """``prefix`` + the 16 big-endian hex digits of each uint64 in ``values``."""
    text = values.astype(">u8").tobytes().hex()
    return [prefix + text[i : i + 16] for i in range(0, len(text), 16)]


def obj(values: list[str]) -> ObjArray:
    """``values`` as a 1-d object array (``np.array`` would make a fixed-width str array)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def last_positions(values: IntArray) -> tuple[IntArray, IntArray]:
    """Distinct ``values`` and the position of the last occurrence of each."""
    uniq, first_rev = np.unique(values[::-1], return_index=True)
    return uniq, len(values) - 1 - first_rev


def local_hour(ts: IntArray) -> FloatArray:
    """The fleet's local hour of day (fractional) at each epoch-ms moment ``ts``."""
    return np.asarray(((ts / HOUR_MS) + LOCAL_UTC_OFFSET_H) % 24.0, dtype=np.float64)


def json_bool(mask: BoolArray) -> list[str]:
    """``"true"``/``"false"`` for each element of ``mask``, ready for a JSON template."""
    out: list[str] = np.where(mask, "true", "false").tolist()
    return out
