"""Fixed columns: the ``*_name`` labels of coded columns."""

from __future__ import annotations

import pandas as pd

from opslib import enums
from opslib.client.frames.build import label_array
from opslib.enums import EventType


def test_label_array_unknown_codes_are_nan() -> None:
    labels = label_array(pd.array([1, 99, None], dtype="Int64"), enums.labels(EventType))
    assert labels[0] == "online"
    assert pd.isna(labels[1])
    assert pd.isna(labels[2])
