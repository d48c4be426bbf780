"""``opslib cache info`` and ``opslib cache clear``, on windows a real read cached."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import pytest

from client.test_event_cache import _closed_range, _windows
from opslib.cli import main
from opslib.client._event_cache import cache_dir

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def test_cache_info_and_clear(platform: ServedPlatform, capsys: pytest.CaptureFixture[str]) -> None:
    start, end = _closed_range()
    platform.connect().events.list(start, end, cache=True)
    platform.connect("user").events.list(start, end, cache=True)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"{platform.base_url}: 4 windows" in out
    assert "2 queries, 2 callers" in out

    assert main(["cache", "clear", "--older-than", "1"]) == 0
    assert "removed 0 windows" in capsys.readouterr().out
    old = time.time() - 3 * 86_400
    os.utime(_windows()[0], (old, old))
    assert main(["cache", "clear", "--older-than", "2"]) == 0
    assert "removed 1 window " in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed 3 windows" in capsys.readouterr().out
    assert not any(cache_dir().rglob("*.parquet"))
    assert main(["cache", "info"]) == 0
    assert "0 windows, 0 platforms" in capsys.readouterr().out
    platform.connect().events.list(start, end, cache=True)
    assert main(["cache", "info"]) == 0
    assert f"{platform.base_url}: 2 windows" in capsys.readouterr().out


@pytest.mark.parametrize("days", ["nan", "-1", "inf"])
def test_clear_refuses_days_that_are_not_a_number_and_keeps_every_window(
    platform: ServedPlatform, capsys: pytest.CaptureFixture[str], days: str
) -> None:
    start, end = _closed_range()
    platform.connect().events.list(start, end, cache=True)
    before = sorted(cache_dir().rglob("*.parquet"))
    assert before
    assert main(["cache", "clear", "--older-than", days]) == 2
    err = capsys.readouterr().err
    assert f"--older-than {float(days)}: not a number of days; accepted: 0 or more" in err
    assert "nothing was removed" in err
    assert sorted(cache_dir().rglob("*.parquet")) == before
