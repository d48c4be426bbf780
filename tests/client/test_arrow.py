"""Pages of numbers joined straight into pandas arrays, as Arrow then pandas would."""

from __future__ import annotations

import random
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from opslib.client.frames import properties as _arrow

# --- numbers joined straight into pandas ----------------------------------------------


def _number_chunks(seed: int, arrow_type: Any) -> list[Any]:
    rng = random.Random(seed)
    chunks = []
    for _ in range(rng.randint(2, 6)):
        size = rng.randint(0, 8)
        pool = [None, 0, 1, -(2**40), 7] if arrow_type == pa.int64() else [None, 0.5, -1.0, 3.0]
        chunk = pa.array([rng.choice(pool) for _ in range(size + 3)], type=arrow_type)
        chunk = chunk.slice(rng.randint(0, 3), size)  # an offset into its buffers
        kind = rng.random()
        if kind < 0.15:
            chunk = pa.nulls(size)  # a page where the member was always missing
        elif kind < 0.3 and arrow_type == pa.float64():
            chunk = pa.array([rng.choice([1, 2, None]) for _ in range(size)], type=pa.int64())
        chunks.append(chunk)
    return chunks


@pytest.mark.parametrize("arrow_type", [pa.int64(), pa.float64()], ids=["int", "float"])
@pytest.mark.parametrize("seed", range(60))
def test_numbers_joined_straight_equal_arrow_join_then_pandas(arrow_type: Any, seed: int) -> None:
    chunks = _number_chunks(seed, arrow_type)
    expected = _arrow.PANDAS_DTYPES[arrow_type].__from_arrow__(
        pa.concat_arrays([c.cast(arrow_type) for c in chunks])
    )
    got = _arrow._numbers_to_pandas(chunks, arrow_type)
    assert type(got) is type(expected)
    pd.testing.assert_extension_array_equal(got, expected)


def test_a_nan_from_arrow_reads_as_pandas_reads_it() -> None:
    chunks = [pa.array([1.0, float("nan")]), pa.array([None, 2.0])]
    expected = pd.Float64Dtype().__from_arrow__(pa.concat_arrays(chunks))
    pd.testing.assert_extension_array_equal(
        _arrow._numbers_to_pandas(chunks, pa.float64()), expected
    )
