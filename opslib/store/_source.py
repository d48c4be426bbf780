"""What the store asks of a client: the one module that reaches past its public methods.

A sync reads each window as ``client.events.list`` does (the same pager, codec, pages in
flight, rate limits and checks) and also keeps each record's raw ``properties`` object
and moment, which a frame does not carry: the event cache's hook on the read's pages.
Everything else goes through the public API (``events.iter_pages``, ``devices.list``,
``products.list``, ``products.categories``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from opslib.client import _schemas as S
from opslib.exceptions import Unsupported
from opslib.store._format import DayRows, RawRecords

__all__ = ["Source"]


class Source:
    """A client as the store reads it."""

    def __init__(self, client: Any) -> None:
        self.client = client

    @property
    def base_url(self) -> str:
        return str(self.client.base_url).rstrip("/")

    @property
    def caller(self) -> str:
        return str(self.client.user_id or "")

    def identity(self) -> dict[str, Any]:
        """What binds a store to this platform and caller, and the labels its frames use."""
        schema = self.client.events._schema(S.EVENT)
        labels = {
            col.name: {str(k): v for k, v in col.label_map.items()}
            for col in schema.columns
            if col.enum is not None
        }
        kinds = {
            part: {str(k): v for k, v in table.items()}
            for part, table in self.client.events._kinds().items()
        }
        return {
            "base_url": self.base_url,
            "caller": self.caller,
            "dialect": self.client.events._codec.name,
            "labels": labels,
            "event_kinds": kinds,
        }

    def has_fleet(self) -> bool:
        """Whether the platform has a whole-fleet event query (else reads go per user)."""
        try:
            self.client.events._query(None, None, None)
        except Unsupported:
            return False
        return True

    def _query(self, kind: str, key: str | None) -> dict[str, Any]:
        events = self.client.events
        if kind == "device":
            return dict(events._query(key, None, None))
        if kind == "user":
            return dict(events._query(None, key, None))
        return dict(events._query(None, None, None, learn_fleet=True))

    def count(self, kind: str, key: str | None, lo: int, hi: int) -> int:
        """How many events the query has in ``[lo, hi)``: one request of one row."""
        options: Mapping[str, Any] = {"device": {"device_id": key}, "user": {"user_id": key}}.get(
            kind, {}
        )
        pages = self.client.events.iter_pages(lo, hi, page_size=1, limit=1, **options)
        try:
            first = next(pages, None)
        finally:
            close = getattr(pages, "close", None)
            if close is not None:
                close()
        return 0 if first is None else int(first.attrs.get("total", 0))

    def read(self, kind: str, key: str | None, lo: int, hi: int, page_size: int) -> DayRows:
        """Every event of the query in ``[lo, hi)`` as ``events.list`` reads them, with each
        row's raw properties and moment."""
        events = self.client.events
        raw = RawRecords()
        pager = events._pager(
            self._query(kind, key), lo, hi, progress=False, page_size=page_size, on_page=raw.add
        )
        df = events._finish(pager.frame())
        return raw.align(df)

    def devices(self, users: list[str] | None) -> pd.DataFrame:
        if users is None:
            return self.client.devices.list(progress=False)
        return self.client.devices.list(users=users, progress=False)

    def products(self) -> pd.DataFrame:
        return self.client.products.list()

    def categories(self) -> pd.DataFrame:
        return self.client.products.categories()
