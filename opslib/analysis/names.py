"""Names where people read them: devices by their nick name and product, products by name.

Ids stay in every frame (and in every exported CSV/Parquet); these add the names beside
them for what a person reads: tables, bars, sentences.
"""

from __future__ import annotations

import pandas as pd

from opslib._missing import is_missing
from opslib.analysis.zones import zone

__all__ = ["category_names", "device_names", "in_zone", "product_names", "with_names"]


def _text(value: object) -> str:
    return "" if is_missing(value) else str(value)


def product_names(products: pd.DataFrame | None) -> dict[str, str]:
    """Product id → name (``client.products.list()``).

    Examples
    --------
    >>> product_names(pd.DataFrame({"product_id": ["p1"], "product_name": ["Lamp"]}))
    {'p1': 'Lamp'}
    """
    if products is None or products.empty:
        return {}
    return {
        str(p): _text(n) or str(p)
        for p, n in zip(products["product_id"], products["product_name"], strict=True)
    }


def category_names(categories: pd.DataFrame | None) -> dict[str, str]:
    """Category id → name (``client.products.categories()``).

    Examples
    --------
    >>> category_names(pd.DataFrame({"category_id": [1], "category_name": ["lighting"]}))
    {'1': 'lighting'}
    """
    if categories is None or categories.empty:
        return {}
    return {
        str(c): _text(n) or str(c)
        for c, n in zip(categories["category_id"], categories["category_name"], strict=True)
    }


def device_names(
    devices: pd.DataFrame | None, products: pd.DataFrame | None = None
) -> dict[str, str]:
    """Device id → how people know it: ``Kitchen lamp · Smart Bulb A19``; a device without
    a nick name by its product and id.

    Examples
    --------
    >>> d = pd.DataFrame({"device_id": ["d1", "d2"], "nick_name": ["Kitchen", None],
    ...                   "product_id": ["p1", "p1"]})
    >>> device_names(d, pd.DataFrame({"product_id": ["p1"], "product_name": ["Lamp"]}))
    {'d1': 'Kitchen · Lamp', 'd2': 'Lamp d2'}
    """
    if devices is None or devices.empty:
        return {}
    catalogue = product_names(products)
    out = {}
    for did, nick, pid in zip(
        devices["device_id"], devices["nick_name"], devices["product_id"], strict=True
    ):
        product = catalogue.get(_text(pid), _text(pid))
        nick_text = _text(nick).strip()
        if nick_text:
            out[str(did)] = f"{nick_text} · {product}" if product else nick_text
        else:
            out[str(did)] = f"{product} {did}".strip()
    return out


def with_names(
    frame: pd.DataFrame,
    *,
    devices: pd.DataFrame | None = None,
    products: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``frame`` with a ``device_name`` after its ``device_id`` and a ``product_name`` after
    its ``product_id`` (when the frames to name them are given); the ids stay.

    Examples
    --------
    >>> with_names(pd.DataFrame({"product_id": ["p1"]}),
    ...            products=pd.DataFrame({"product_id": ["p1"], "product_name": ["Lamp"]}))
    ...  # doctest: +NORMALIZE_WHITESPACE
      product_id product_name
    0         p1         Lamp
    """
    out = frame.copy()
    pairs = []
    if devices is not None and "device_id" in out.columns and "device_name" not in out.columns:
        pairs.append(("device_id", "device_name", device_names(devices, products)))
    if products is not None and "product_id" in out.columns and "product_name" not in out.columns:
        pairs.append(("product_id", "product_name", product_names(products)))
    for key, column, names in pairs:
        values = (
            out[key]
            .astype("string")
            .map(lambda v, n=names: n.get(str(v), "") if not pd.isna(v) else "")
        )
        out.insert(list(out.columns).index(key) + 1, column, values.astype("string"))
    return out


def in_zone(frame: pd.DataFrame, tz: str | None) -> pd.DataFrame:
    """``frame`` with every moment (``gmt_*`` and other zoned columns) in the reader's zone.

    Examples
    --------
    >>> f = pd.DataFrame({"gmt_bind": pd.to_datetime(["2026-01-01 20:00"], utc=True)})
    >>> str(in_zone(f, "Asia/Shanghai")["gmt_bind"][0])
    '2026-01-02 04:00:00+08:00'
    """
    out = frame.copy()
    info = zone(tz)
    for column in out.columns:
        if isinstance(out[column].dtype, pd.DatetimeTZDtype):
            out[column] = out[column].dt.tz_convert(info)
    out.attrs = dict(frame.attrs)
    return out
