"""The read invariant: what every answer of a paged read must be, checked in one place.

A paged read (``/device/query_by_user``, ``/device/query_record``) returns every record
the platform says exists, each once, or raises. The pager
(:mod:`opslib.client._pager`) calls these checks; they hold for every dialect:

- a page's ``data`` is an object holding the operation's list (a list of objects) and
  ``total``, a non-negative integer (a boolean is not one): else
  :class:`~opslib.ProtocolError` naming the operation, the field and the value
  (:func:`page`). A list read that does not page (the categories, a category's products)
  is held to the same shape without ``total`` (:func:`listing`), a read of one record to
  an object holding its key (:func:`record`);
- the records read, each counted once by the operation's key
  (:attr:`Paged.key <opslib.protocol.operations.Paged.key>`), are exactly as many as
  ``total`` says: fewer *or more* raise :class:`~opslib.IncompleteRead` with expected, got
  and the duplicates seen (:func:`check_count`). More rows than the total is a total
  that counts something else (pages) or is understated, whose rows past it were never
  going to be asked for, or rows added while the read went on: either way not the
  result the total describes;
- a page all of whose records were read already (a platform that ignores ``page_no``
  serves page 1 again) raises at once (:class:`Keys`);
- where ``total`` counts pages (``Paging.total == "pages"``), ``P`` pages of ``size``
  stand for ``(P-1)*size + 1`` to ``P*size`` records: the last page must hold 1 to
  ``size`` of them and every page must say the same ``P`` (:func:`records_of_pages`,
  :func:`same_pages`). Rows deleted or added during the read change one or the other;
  without these checks 13 rows with 3 deleted mid-read read as 10, the deleted ones
  among them, against a total that looked consistent.

Nothing here knows the client: records are plain decoded JSON.

>>> records, total = page("/device/query_record", "events_list",
...                       {"total": 1, "events_list": [{"event_id": "e1"}]})
>>> total, len(records)
(1, 1)
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import numpy as np

from opslib.exceptions import IncompleteRead, ProtocolError
from opslib.protocol.operations import OPERATIONS, Operation

__all__ = [
    "Keys",
    "Tally",
    "check_count",
    "is_count",
    "key_fields",
    "listing",
    "objects",
    "page",
    "record",
    "records_of_pages",
    "same_pages",
]

_TOTAL = "a non-negative integer (the records, or pages, the read must return)"
_PAGED = {op.paged.list_key: op for op in OPERATIONS if op.paged is not None}


def is_count(value: object) -> bool:
    """Whether ``value`` is a count: a non-negative integer, not a boolean.

    >>> is_count(3), is_count(True), is_count(-1), is_count(3.0), is_count(None)
    (True, False, False, False, False)
    """
    return type(value) is int and value >= 0


def key_fields(operation: str, list_key: str, default: Sequence[str] = ()) -> tuple[str, ...]:
    """The fields naming one record of the paged read at ``operation`` (a path or name),
    else of the paged operation whose list is ``list_key``, else ``default``.

    >>> key_fields("/device/query_by_user", "device_list")
    ('device_id',)
    >>> key_fields("", "events_list")
    ('event_id',)
    """
    found: Operation | None = None
    for op in OPERATIONS:
        if operation in (op.path, op.name) and op.paged is not None:
            found = op
    found = found or _PAGED.get(list_key)
    if found is not None and found.paged is not None:
        return found.paged.key
    return tuple(default)


def _object(operation: str, data: Any, holds: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolError(
            operation=operation, field="data", value=data, expected=f"an object holding {holds}"
        )
    return data


def _list(operation: str, list_key: str, data: dict[str, Any]) -> list[Any]:
    records = data.get(list_key)
    if not isinstance(records, list):
        raise ProtocolError(
            operation=operation,
            field=f"data.{list_key}",
            value=records,
            expected="a list of records (an empty list when there are none)",
        )
    return records


def objects(operation: str, list_key: str, records: list[Any]) -> list[dict[str, Any]]:
    """``records`` if each is an object, else :class:`~opslib.ProtocolError` naming the
    first that is not. A paged read calls it only when typing a page failed: a page of a
    thousand records is not looped over twice.

    >>> objects("/device/query_record", "events_list", [{}, 7])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    opslib.exceptions.ProtocolError: /device/query_record: data.events_list[1] is 7; ...
    """
    for i, item in enumerate(records):
        if not isinstance(item, dict):
            raise ProtocolError(
                operation=operation,
                field=f"data.{list_key}[{i}]",
                value=item,
                expected="an object (one record)",
            )
    return records


def page(operation: str, list_key: str, data: Any) -> tuple[list[dict[str, Any]], int]:
    """One page's records and its ``total``; :class:`~opslib.ProtocolError` when ``data``
    is not an object holding ``list_key`` as a list and ``total`` as a non-negative
    integer. That each record is an object is left to :func:`objects`, when typing them
    fails.

    >>> page("/device/query_by_user", "device_list", {"device_list": []})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    opslib.exceptions.ProtocolError: /device/query_by_user: data.total is None; expected a ...
    """
    data = _object(operation, data, f"{list_key} (a list) and total")
    total = data.get("total")
    if not is_count(total):
        raise ProtocolError(operation=operation, field="data.total", value=total, expected=_TOTAL)
    return _list(operation, list_key, data), total


def listing(operation: str, list_key: str, data: Any) -> list[dict[str, Any]]:
    """The records of a list read that does not page (``category_list``,
    ``product_list``); :class:`~opslib.ProtocolError` when ``data`` does not hold them.

    >>> listing("/product/query_category", "category_list", {"category_list": []})
    []
    """
    data = _object(operation, data, f"{list_key} (a list)")
    return objects(operation, list_key, _list(operation, list_key, data))


def record(operation: str, data: Any, key: Sequence[str]) -> dict[str, Any]:
    """The one record a read answers (a device, a user); :class:`~opslib.ProtocolError`
    when ``data`` is not an object holding its ``key`` fields (a ``data: null`` success
    would read as a row of missing values).

    >>> record("/device/query", {"device_id": "d1"}, ("device_id",))
    {'device_id': 'd1'}
    """
    data = _object(operation, data, "the record (" + ", ".join(key) + ")")
    for name in key:
        if data.get(name) in (None, ""):
            raise ProtocolError(
                operation=operation,
                field=f"data.{name}",
                value=data.get(name),
                expected="the record's key (a success answers the record asked for)",
            )
    return data


def records_of_pages(operation: str, *, pages: int, rows: int, size: int) -> int:
    """The records a ``total`` of ``pages`` pages of ``size`` stands for, counted on its
    last page, which held ``rows``: ``P`` pages hold ``(P-1)*size + 1`` to ``P*size``
    records, so the last page holds 1 to ``size`` (none when ``P`` is 0). Any other
    count means the pages changed while they were read: :class:`~opslib.IncompleteRead`.

    >>> records_of_pages("/device/query_record", pages=3, rows=3, size=5)
    13
    >>> records_of_pages("/device/query_record", pages=3, rows=0, size=5)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    opslib.exceptions.IncompleteRead: ... the read got 10: its total counts 3 pages of 5, ...
    """
    if pages == 0 and rows == 0:
        return 0
    if not 1 <= rows <= size or pages == 0:
        least = (pages - 1) * size + 1 if pages else 0
        raise IncompleteRead(
            operation=operation,
            expected=least,
            got=max(pages - 1, 0) * size + rows,
            detail=(
                f"its total counts {pages} pages of {size}, so its last page ({pages}) holds "
                f"{'1 to ' + str(size) if pages else 'no'} rows; it held {rows} (rows were "
                "added or deleted during the read, or the total counts something else)"
            ),
        )
    return (pages - 1) * size + rows


def same_pages(operation: str, *, first: int, page_no: int, pages: int, size: int) -> None:
    """Every page of a read whose ``total`` counts pages says the first page's count:
    another count means rows were added or deleted while the read went on, and the
    records counted on the last page no longer hold (:class:`~opslib.IncompleteRead`).

    >>> same_pages("/device/query_record", first=3, page_no=2, pages=3, size=5)
    """
    if pages != first:
        raise IncompleteRead(
            operation=operation,
            expected=(first - 1) * size + 1 if first else 0,
            got=(pages - 1) * size + 1 if pages else 0,
            detail=(
                f"page 1 said {first} pages of {size}, page {page_no} says {pages}: rows were "
                "added or deleted during the read (read it again)"
            ),
        )


def check_count(
    operation: str,
    *,
    expected: int,
    got: int,
    limit: int | None = None,
    duplicates: int = 0,
    detail: str = "",
) -> None:
    """The count at a read's end: ``got`` records (each once) against the ``expected``
    the total promised from the first page read on. Fewer (within ``limit``) or more
    raise :class:`~opslib.IncompleteRead`.

    >>> check_count("/device/query_by_user", expected=230, got=100, limit=100)
    >>> check_count("/device/query_by_user", expected=3, got=100)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    opslib.exceptions.IncompleteRead: ... says 3 rows exist, the read got 100: more rows than ...
    """
    wanted = expected if limit is None else min(expected, limit)
    if got > expected:
        more = (
            "more rows than the total (rows added during the read: read it again; or a "
            "total that counts pages, or one too low)"
        )
        raise IncompleteRead(
            operation=operation,
            expected=expected,
            got=got,
            duplicates=duplicates,
            detail=f"{more}; {detail}" if detail else more,
        )
    if got < wanted:
        raise IncompleteRead(
            operation=operation,
            expected=wanted,
            got=got,
            duplicates=duplicates,
            detail=detail,
        )


@dataclass
class Tally:
    """What one paged read was told and what it got, checked at its end (:meth:`check`)."""

    first_no: int = 1
    last_no: int = 1
    size: int = 0
    total: int = 0  # the records the platform's total stands for
    rows: int = 0  # rows received, duplicates included
    short: list[int] = field(default_factory=list)  # pages but the last with fewer rows
    pages: int | None = None  # the first page's total where it counts pages

    @property
    def expected(self) -> int:
        """The records the total stands for from the first page read on."""
        return max(0, self.total - (self.first_no - 1) * self.size)

    def check(self, operation: str, got: int, *, limit: int | None, duplicates: int) -> int:
        """``got`` records against the total (:func:`check_count`); the total."""
        short = f"; short pages: {self.short[:10]}" if self.short else ""
        pages = self.last_no - self.first_no + 1
        detail = f"{self.rows} rows came in {pages} pages of {self.size}{short}, duplicates dropped"
        check_count(
            operation,
            expected=self.expected,
            got=got,
            limit=limit,
            duplicates=duplicates,
            detail=detail,
        )
        return self.total


class Keys:
    """The keys of the records a read has seen, to count each record once without keeping
    the records: each key is hashed to 8 bytes (a 1,000,000-row read keeps 8 MB; a set of
    the key strings would take over 100 MB). Two keys sharing a 64-bit hash in a read of
    a million is a one-in-ten-million chance, and would count as a duplicate.

    :meth:`hashes` may run in any thread (the one typing the page); :meth:`add` runs in
    the reading thread, in page order.

    >>> keys = Keys("/device/query_record", ("event_id",))
    >>> keys.add(1, keys.hashes([{"event_id": "a"}, {"event_id": "b"}]), expected=4)
    >>> keys.add(2, keys.hashes([{"event_id": "a"}, {"event_id": "b"}]), expected=4)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    opslib.exceptions.IncompleteRead: ... the read got 2 (2 duplicate rows dropped): page 2 ...
    """

    def __init__(self, operation: str, key: Sequence[str]) -> None:
        self.operation = operation
        self._key = tuple(key)
        self._pages: list[np.ndarray] = []
        self._first: np.ndarray | None = None  # the first page's hashes
        self._rows = 0

    def hashes(self, records: Sequence[dict[str, Any]]) -> np.ndarray:
        """The 64-bit hashes of ``records``' keys (Python's own ``hash``: the same within
        one process, which is all a read needs)."""
        if len(self._key) == 1:
            keys: Iterable[Any] = map(dict.get, records, repeat(self._key[0]))
        else:
            keys = (tuple(map(r.get, self._key)) for r in records)
        return np.fromiter(map(hash, keys), dtype=np.int64, count=len(records))

    def add(self, page_no: int, hashes: np.ndarray, *, expected: int) -> None:
        """Take one page's hashes; raise :class:`~opslib.IncompleteRead` (``expected``: the
        rows the read expects) when every record of a page repeats the first page or the
        previous one: page 1 served again, whatever ``page_no`` asked."""
        first = self._first
        self._rows += len(hashes)
        if first is None:
            self._first = hashes
        elif len(hashes) and self._repeats(hashes, first, self._pages[-1]):
            self._pages.append(hashes)
            raise IncompleteRead(
                operation=self.operation,
                expected=expected,
                got=self.unique,
                duplicates=self.duplicates,
                detail=(
                    f"page {page_no} repeats rows already read, all {len(hashes)} of "
                    "them (a platform that ignores page_no?)"
                ),
            )
        self._pages.append(hashes)

    @staticmethod
    def _repeats(hashes: np.ndarray, first: np.ndarray, previous: np.ndarray) -> bool:
        """Whether every one of ``hashes`` is in ``first`` or ``previous``; its first one
        is looked for alone before (a page of a correct read stops there, in microseconds)."""
        head = hashes[0]
        if not ((first == head).any() or (previous == head).any()):
            return False
        known = previous if previous is first else np.concatenate((first, previous))
        return bool(np.isin(hashes, known).all())

    @property
    def rows(self) -> int:
        """Rows seen, repeats included."""
        return self._rows

    @property
    def unique(self) -> int:
        """Records seen, each once."""
        if not self._pages:
            return 0
        keys = np.sort(np.concatenate(self._pages))  # np.unique is 20 times slower
        return int(keys.size and 1 + np.count_nonzero(keys[1:] != keys[:-1]))

    @property
    def duplicates(self) -> int:
        """Rows that repeated a record already seen."""
        return self._rows - self.unique


def in_window(
    operation: str, field: str, first_ms: int | None, last_ms: int | None, window: tuple[int, int]
) -> None:
    """A page's earliest and latest moment against the window asked for, ``[start, end)``:
    a record outside it is the platform answering another question (a unit it misread, a
    filter it ignored), never rows to keep. Moments shown to the second are compared with
    the window widened to whole seconds.

    Raises
    ------
    opslib.ProtocolError
        Naming the operation, the field, the moment and the window.

    Examples
    --------
    >>> in_window("/device/query_record", "gmt_create", 1_500, 2_000, (1_500, 3_000))
    >>> in_window("/device/query_record", "gmt_create", 0, 2_000, (1_500, 3_000))
    ... # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    opslib.exceptions.ProtocolError: /device/query_record: gmt_create is
    '1970-01-01T00:00:00Z'; expected a moment in the window asked for, ...
    """
    start, end = window
    lo, hi = start - start % 1000, -(-end // 1000) * 1000
    for moment in (first_ms, last_ms):
        if moment is not None and not lo <= moment < hi:
            raise ProtocolError(
                operation=operation,
                field=field,
                value=_iso(moment),
                expected=f"a moment in the window asked for, {_iso(lo)} to {_iso(hi)}",
            )


def _iso(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
