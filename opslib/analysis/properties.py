"""Numeric properties of events: which ``properties.<key>`` columns are numbers, their
statistics, and a command's ``value`` split by command.

Every function takes an event frame of :data:`opslib.client.frames.schema.EVENT`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "PROPERTY_PREFIX",
    "chart_properties",
    "property_columns",
    "property_stats",
    "value_by_command",
]

PROPERTY_PREFIX = "properties."
# A property column counts as numeric when at least this share of its values parse as numbers.
_NUMERIC_SHARE = 0.9


def property_columns(events: pd.DataFrame) -> list[str]:
    """The ``properties.<key>`` columns whose values are (almost all) numbers.

    Examples
    --------
    >>> property_columns(events)  # doctest: +SKIP
    ['properties.power', 'properties.temperature']
    """
    names = []
    for column in events.columns:
        if not column.startswith(PROPERTY_PREFIX):
            continue
        series = events[column]
        if pd.api.types.is_bool_dtype(series.dtype):
            continue
        if pd.api.types.is_numeric_dtype(series.dtype):  # every value a number: no parsing
            if series.notna().any():
                names.append(column)
            continue
        share = _numeric_share(series)
        if share is not None and share >= _NUMERIC_SHARE:
            names.append(column)
    return sorted(names)


def chart_properties(events: pd.DataFrame) -> list[str]:
    """The numeric properties worth a chart, most reported first: a property whose values
    are only 0 and 1 (a switch, a command's on/off) says nothing as a box, and is left out.

    Examples
    --------
    >>> chart_properties(events)  # doctest: +SKIP
    ['properties.power', 'properties.voltage', 'properties.temperature']
    """
    ranked = []
    for column in property_columns(events):
        numbers = _as_float(events[column])
        present = numbers[~np.isnan(numbers)]
        if present.size == 0 or ((present == 0.0) | (present == 1.0)).all():  # no sort
            continue
        ranked.append((-present.size, column))
    return [column for _, column in sorted(ranked)]


def _numeric_share(series: pd.Series) -> float | None:
    """The share of a text or object column's present values that parse as numbers (None:
    no value). Text is parsed once per distinct value (1M rows of a few modes: one hash
    pass instead of a million parses)."""
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        counts = pc.value_counts(pa.array(series.array)).flatten()
        values = pd.Series(counts[0].to_pandas(), dtype=object)
        weights = counts[1].to_numpy()
        present = values.notna().to_numpy()
        total = int(weights[present].sum())
        if not total:
            return None
        numeric = pd.to_numeric(values[present], errors="coerce").notna().to_numpy()
        return float(weights[present][numeric].sum() / total)
    values = series.dropna()
    if values.empty:
        return None
    return float(pd.to_numeric(values, errors="coerce").notna().mean())


def _as_float(series: pd.Series) -> np.ndarray:
    """A property column as float64 values, NaN where missing or not a number. Text and
    mixed values are parsed where present only (a command's ``value`` column holds a value
    in a few rows of a million)."""
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        return series.to_numpy(dtype="float64", na_value=np.nan)
    out = np.full(len(series), np.nan)
    present = series.notna().to_numpy()
    if present.any():
        numeric = pd.to_numeric(series[present], errors="coerce")
        out[present] = numeric.to_numpy(dtype="float64", na_value=np.nan)
    return out


def property_stats(events: pd.DataFrame) -> pd.DataFrame:
    """Statistics of every numeric reported property.

    Returns
    -------
    pandas.DataFrame
        One row per property (``property`` without the ``properties.`` prefix) with
        ``reports``, ``devices``, ``mean``, ``std``, ``min``, ``p05``, ``median``, ``p95``
        and ``max``.

    Examples
    --------
    >>> analysis.property_stats(events)  # doctest: +SKIP
    """
    rows = []
    numeric_columns = property_columns(events)
    # Device ids as codes once; per property the distinct codes among its reports (not
    # nunique over the text, once per property).
    devices, _ = (
        pd.factorize(events["device_id"]) if numeric_columns else (np.empty(0, np.int64), None)
    )
    seen = np.zeros(int(devices.max()) + 1 if len(devices) else 0, dtype=bool)
    for column in numeric_columns:
        values = _as_float(events[column])
        present = ~np.isnan(values)
        data = values[present]
        reported = devices[present]
        seen[:] = False
        seen[reported[reported >= 0]] = True
        # One sort of the values for the three quantiles (linear, as pandas computes them)
        p05, median, p95 = np.quantile(data, [0.05, 0.5, 0.95]) if data.size else [np.nan] * 3
        rows.append(
            {
                "property": column.removeprefix(PROPERTY_PREFIX),
                "reports": int(data.size),
                "devices": int(np.count_nonzero(seen)),
                "mean": data.mean() if data.size else np.nan,
                "std": data.std(ddof=1) if data.size > 1 else np.nan,
                "min": data.min() if data.size else np.nan,
                "p05": p05,
                "median": median,
                "p95": p95,
                "max": data.max() if data.size else np.nan,
            }
        )
    columns = {"property": "string", "reports": "Int64", "devices": "Int64"}
    stats = ["mean", "std", "min", "p05", "median", "p95", "max"]
    columns.update(dict.fromkeys(stats, "Float64"))
    if not rows:
        return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in columns.items()})
    return pd.DataFrame(rows).astype(columns)


def value_by_command(events: pd.DataFrame) -> pd.DataFrame:
    """``events`` with the generic ``properties.value`` split by the command it belongs to.

    A command event reports ``{"command": "set_brightness", "value": 80}``: one ``value``
    key for unrelated quantities (a brightness, a temperature...). Each command's values
    become a column of their own, ``properties.value (set_brightness)``, so statistics
    never mix them; frames without both keys are returned as they are.

    Examples
    --------
    >>> analysis.property_stats(analysis.value_by_command(events))  # doctest: +SKIP
    """
    value, command = f"{PROPERTY_PREFIX}value", f"{PROPERTY_PREFIX}command"
    if value not in events.columns or command not in events.columns:
        return events
    names = events[command].astype("string")
    out = events.drop(columns=[value])
    extra = {}
    for name in sorted(names.dropna().unique()):
        extra[f"{value} ({name})"] = events[value].where(names == name)
    orphan = events[value].where(names.isna())
    if orphan.notna().any():
        extra[value] = orphan
    return pd.concat([out, pd.DataFrame(extra, index=events.index)], axis=1)
