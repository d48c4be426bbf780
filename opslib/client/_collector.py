"""An opt-in for bulk reads: Python's cyclic garbage collector run less often.

A page of events decodes into about a thousand dicts that the collector tracks and that
reference counting frees a moment later. A page of 1000 rows is parsed and typed while
the collector waits (``_http.Decoding``); smaller pages' records wait outside that turn to
be typed together, and with the default threshold (700) the collector walks them several
times a page. opslib changes no threshold by itself (they are process-wide): a user who
reads millions of rows in small pages asks for it around the read (docs/performance.md
has what it buys).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["gc_threshold"]


@contextlib.contextmanager
def gc_threshold(threshold: int = 10_000) -> Iterator[None]:
    """Run the collector's first generation every ``threshold`` allocations inside the block.

    The previous thresholds come back when the block ends. The setting is the whole
    process's: use it around a read, not from several threads at once.

    Parameters
    ----------
    threshold
        Allocations (net of frees) between runs of the youngest generation; Python's
        default is 700.

    Examples
    --------
    >>> import opslib
    >>> with opslib.gc_threshold():
    ...     events = client.events.list("-90d")  # doctest: +SKIP
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        raise ValueError(f"threshold must be a positive int, got {threshold!r}")
    saved = gc.get_threshold()
    gc.set_threshold(threshold, *saved[1:])
    try:
        yield
    finally:
        gc.set_threshold(*saved)
