"""The reports' data source: the platform, or the local store (``-p source store``).

A report connects as always, then :func:`report_source` gives it a client whose
``events.list`` reads the store (everything else still asks the platform: the device
list is one cheap read, events are the long one), and the line to print about how fresh
the store is. fleet_inventory's "devices by status per day" comes from the store's
snapshots (:func:`status_per_day`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from opslib.store._info import freshness, store_info
from opslib.store._layout import SOURCES
from opslib.store._read import Store
from opslib.timeutil import Moment

__all__ = ["SOURCES", "StoreClient", "report_source", "status_per_day"]


class _StoreEvents:
    """``client.events.list`` answered by the store, with the arguments reports give it."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def list(
        self,
        start: Moment,
        end: Moment = "now",
        *,
        device_id: str | None = None,
        user_id: str | None = None,
        users: Iterable[str] | None = None,
        event_type: int | str | None = None,
        **_ignored: Any,
    ) -> pd.DataFrame:
        df = self.store.events(  # strict: a report of a range not stored counts too few
            start, end, device_id=device_id, user_id=user_id, event_type=event_type, strict=True
        )
        if users is not None and device_id is None and user_id is None:
            keep = df["user_id"].isin([str(u) for u in users]).to_numpy(dtype=bool)
            attrs = dict(df.attrs)
            df = df.loc[keep].reset_index(drop=True)
            df.attrs = {**attrs, "total": len(df)}
        return df


class StoreClient:
    """A client whose event reads come from the store; every other attribute is the
    platform client's."""

    def __init__(self, client: Any, store: Store) -> None:
        self._client = client
        self.store = store
        self.events = _StoreEvents(store)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    @property
    def freshness(self) -> str:
        fresh = freshness(store_info(self.store.path))
        return f"Events from the local store {self.store.path}: {fresh}."


def report_source(client: Any, source: str = "platform", store: str | Path | None = None) -> Any:
    """The client a report reads with: ``client`` itself, or one reading events from the
    store (``store``: its directory; empty or None: the default store).

    Examples
    --------
    >>> report_source(client, "store").freshness  # doctest: +SKIP
    'Events from the local store /home/me/.local/share/opslib/store: events up to ...'
    """
    if source not in SOURCES:
        raise ValueError(f"source: {source!r} is not one of {list(SOURCES)}")
    if source == "platform":
        return client
    from opslib.client.stored import ClientReads
    from opslib.store._sync import check_identity

    st = Store(store or None)
    if not st.layout.identity.get("base_url"):
        raise ValueError(f"source: the store {st.path} is empty; run `opslib sync` first")
    check_identity(st.layout, ClientReads(client).identity())
    return StoreClient(client, st)


def status_per_day(store: str | Path | None = None) -> pd.DataFrame:
    """Devices by status on each day the store has a snapshot of the device list: one row
    per day, one column per status label (empty when there is none).

    Examples
    --------
    >>> status_per_day().tail(2)  # doctest: +SKIP
    status_name  fault  inactive  offline  online
    snapshot_day
    2026-11-25      61       102      891    3946
    """
    st = Store(store or None)
    if not st.layout.snapshot_files("devices"):
        return pd.DataFrame()
    con = st.connect()
    try:
        counts = con.execute(
            "SELECT snapshot_day, status_name, count(*) AS devices FROM devices "
            "GROUP BY ALL ORDER BY ALL"
        ).df()
    finally:
        con.close()
    return counts.pivot_table(
        index="snapshot_day", columns="status_name", values="devices", fill_value=0
    )
