"""A local store of a platform's events and fleet snapshots, kept for as long as you like.

>>> import opslib
>>> opslib.sync(since="-365d")                   # the first time: a year, day by day
>>> opslib.sync()                                # then: what is new, and 2 days again
>>> import opslib.store
>>> con = opslib.store.connect()                 # DuckDB: events, devices, products...
>>> con.sql("SELECT event_type_name, count(*) FROM events GROUP BY 1").df()
>>> week = opslib.store.events("-7d")            # = client.events.list("-7d")

The layout and its guarantees: :mod:`opslib.store._layout`; the sync:
:mod:`opslib.store._sync`; the views: :mod:`opslib.store._duck`; docs/scaling.md.
"""

import typing

from opslib._lazy import attach as _attach

if typing.TYPE_CHECKING:
    from opslib.store._api import arrow, connect, events
    from opslib.store._info import StoreInfo, freshness, store_info
    from opslib.store._layout import (
        STORE_ENV,
        StoreGap,
        StoreLocked,
        StoreMismatch,
        default_store_dir,
    )
    from opslib.store._read import Store
    from opslib.store._report_source import report_source, status_per_day
    from opslib.store._sync import SyncResult, sync

__all__ = [
    "STORE_ENV",
    "Store",
    "StoreGap",
    "StoreInfo",
    "StoreLocked",
    "StoreMismatch",
    "SyncResult",
    "arrow",
    "connect",
    "default_store_dir",
    "events",
    "freshness",
    "report_source",
    "status_per_day",
    "store_info",
    "sync",
]

# Each public name -> its module (imported on first use: ``opslib --help`` stays light).
_HOME = {
    "STORE_ENV": "opslib.store._layout",
    "Store": "opslib.store._read",
    "StoreInfo": "opslib.store._info",
    "StoreLocked": "opslib.store._layout",
    "StoreGap": "opslib.store._layout",
    "StoreMismatch": "opslib.store._layout",
    "SyncResult": "opslib.store._sync",
    "arrow": "opslib.store._api",
    "connect": "opslib.store._api",
    "default_store_dir": "opslib.store._layout",
    "events": "opslib.store._api",
    "freshness": "opslib.store._info",
    "report_source": "opslib.store._report_source",
    "status_per_day": "opslib.store._report_source",
    "store_info": "opslib.store._info",
    "sync": "opslib.store._sync",
}

if not typing.TYPE_CHECKING:
    __getattr__, __dir__ = _attach(__name__, _HOME)
