"""A view builder and a figure total shared by the widget tests."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from opslib import analysis, plots


def status_counts(d: pd.DataFrame) -> go.Figure:
    return plots.counts_bar(analysis.count_by(d, "status_name"), "status_name")


def total(fig: go.Figure) -> int:
    return int(sum(sum(v for v in t.x if v is not None) for t in fig.data))
