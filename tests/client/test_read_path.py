"""The read path a newcomer follows: a plain ``client.events.list`` runs code in few opslib
modules (resource method → paged read → protocol codec → transport → frame builder).

Every module whose code runs during the read is counted with a profile hook, in the
calling thread and the pool's (the platform serving the test, in this process, is not the
client), after a first read has imported everything.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import pytest

import opslib

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

MOST_MODULES = 12
ROOT = str(Path(opslib.__file__).parent) + "/"


class Modules:
    """The opslib modules whose functions were called while :meth:`trace` ran."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self._reader = threading.current_thread()

    def _hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(ROOT):
            thread = threading.current_thread()
            if thread is self._reader or thread.name.startswith("opslib-page"):
                self.seen.add(frame.f_code.co_filename.removeprefix(ROOT))

    def trace(self) -> Iterator[None]:
        threading.setprofile(self._hook)  # the pool's threads, started during the read
        sys.setprofile(self._hook)
        try:
            yield
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("page_size", [1000, 20])
def test_a_plain_events_list_runs_in_at_most_twelve_modules(
    platform: ServedPlatform, page_size: int
) -> None:
    """One page (the default size) and many pages through the pool alike."""
    client = platform.connect()
    options = {} if page_size == 1000 else {"page_size": page_size}
    client.events.list("-7d", **options)  # everything imported, the fleet access learned
    modules = Modules()
    for _ in modules.trace():
        df = client.events.list("-7d", **options)
    assert len(df) > (0 if page_size == 1000 else 3 * page_size)  # several pages
    assert "client/frames/build.py" in modules.seen  # the hook saw the whole path
    assert len(modules.seen) <= MOST_MODULES, sorted(modules.seen)
