"""Step 3: paging. One page of 1000 and one of 1 of the paged reads, against their totals:
the largest page the platform serves, and whether ``total`` counts records or pages."""

from __future__ import annotations

import math
from typing import Any

from opslib.probing.state import Probe
from opslib.protocol import operations as ops

__all__ = ["paging"]

ASKED = 1000


def paging(probe: Probe) -> None:
    """Learn ``paging.max_page_size`` and ``paging.total``."""
    reads: list[tuple[ops.Operation, dict[str, Any]]] = [
        (ops.QUERY_BY_USER, {"user_id": probe.fleet_user()}),
        (ops.QUERY_RECORD, probe.event_params()),
    ]
    best: tuple[tuple[int, int], tuple[int, int]] | None = None
    refused_big = False
    cap = probe.base.paging.max_page_size
    for op, params in reads:
        big = probe.page(op, params, ASKED)
        if big is None:  # a page of 1000 refused: a cap that errors; ask the base's
            big = probe.page(op, params, cap)
            refused_big = refused_big or big is not None
        one = probe.page(op, params, 1)
        if big is not None and one is not None and (best is None or one[1] > best[1][1]):
            best = (big, one)
    if best is None:
        probe.note("paging", "", None, "low", "no paged read answered")
        return
    (served, total_big), (_, total_one) = best
    if total_one <= 1:
        probe.note(
            "paging",
            "total",
            probe.base.paging.total,
            "low",
            f"{total_one} record(s): nothing to tell pages from records",
        )
        return
    _total(probe, served, total_big, total_one)
    if refused_big:
        probe.note("paging", "max_page_size", cap, "high", f"asked {ASKED}: refused; {cap} served")
    elif 0 < served < min(ASKED, total_one):
        probe.note(
            "paging",
            "max_page_size",
            served,
            "high",
            f"asked {ASKED}, served {served} of {total_one}, no error",
        )
    else:
        probe.seen(
            "paging.max_page_size", cap, "medium", f"asked {ASKED}, served {served} of {total_one}"
        )


def _total(probe: Probe, served: int, total_big: int, total_one: int) -> None:
    """Records or pages: a total that stays the same at both page sizes counts records,
    one that divides by the page counts pages."""
    if total_big == total_one:
        probe.note(
            "paging", "total", "records", "high", f"total {total_big} at page sizes 1 and {ASKED}"
        )
    elif served and total_big == math.ceil(total_one / served):
        probe.note(
            "paging",
            "total",
            "pages",
            "high",
            f"total {total_one} at page size 1, {total_big} at {served} a page",
        )
    else:
        probe.note(
            "paging",
            "total",
            probe.base.paging.total,
            "low",
            f"totals {total_one} and {total_big} fit neither",
        )
