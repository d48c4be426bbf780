"""opslib.analysis._common: report windows."""

from __future__ import annotations

import pandas as pd
import pytest

from opslib import analysis


def test_resolve_window_shares_one_now() -> None:
    start, end = analysis.resolve_window("-7d", "now")
    assert end - start == pd.Timedelta(days=7)
    with pytest.raises(ValueError, match="start must be before end"):
        analysis.resolve_window("now", "-1d")
