"""``opslib cache info`` and ``opslib cache clear``: what the event cache holds, and emptying it.

The cache itself (layout, keys, reads) is :mod:`opslib.client._event_cache`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from opslib.client._event_cache import FORMAT, KEY_FILE, cache_dir

__all__ = ["CacheInfo", "cache_command", "cache_info", "clear_cache", "describe_span"]


@dataclass
class CacheInfo:
    """What the cache holds: its directory, size, windows and, per platform, the same."""

    path: Path
    bytes: int = 0
    windows: int = 0
    platforms: dict[str, dict[str, Any]] = field(default_factory=dict)


def _entries(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    base = root / FORMAT
    if not base.is_dir():
        return
    for entry in sorted(base.iterdir()):
        try:
            key = orjson.loads((entry / KEY_FILE).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            key = {}
        yield entry, key


def _window_of(path: Path) -> tuple[int, int] | None:
    try:
        lo, hi = path.stem.split("-")
        return int(lo), int(hi)
    except ValueError:
        return None


def cache_info(root: Path | None = None) -> CacheInfo:
    """Size, windows and platforms of the event cache (``opslib cache info``).

    Examples
    --------
    >>> info = cache_info()
    >>> info.windows >= 0
    True
    """
    root = root or cache_dir()
    info = CacheInfo(root)
    for entry, key in _entries(root):
        platform = str(key.get("base_url", "?"))
        stats = info.platforms.setdefault(
            platform, {"bytes": 0, "windows": 0, "queries": 0, "callers": set(), "span": None}
        )
        stats["queries"] += 1
        stats["callers"].add(str(key.get("caller", "?")))
        for path in entry.glob("*.parquet"):
            window = _window_of(path)
            if window is None:
                continue
            size = path.stat().st_size
            info.bytes += size
            info.windows += 1
            stats["bytes"] += size
            stats["windows"] += 1
            lo, hi = stats["span"] or window
            stats["span"] = (min(lo, window[0]), max(hi, window[1]))
    for stats in info.platforms.values():
        stats["callers"] = len(stats["callers"])
    return info


def clear_cache(older_than_days: float | None = None, root: Path | None = None) -> int:
    """Remove cached windows (all, or those cached more than ``older_than_days`` ago).

    Leftover temporary files of interrupted writes go too, and directories left empty.

    Returns
    -------
    int
        The number of windows removed.

    Raises
    ------
    ValueError
        ``older_than_days`` below 0, NaN or infinite; nothing is removed.

    Examples
    --------
    >>> clear_cache(older_than_days=90)  # doctest: +SKIP
    12
    """
    if older_than_days is not None and not (
        math.isfinite(older_than_days) and older_than_days >= 0
    ):
        raise ValueError(
            f"older_than_days must be a number of days, 0 or more, got {older_than_days!r}"
        )
    root = root or cache_dir()
    cutoff = None if older_than_days is None else time.time() - older_than_days * 86_400
    removed = 0
    for entry, _key in _entries(root):
        for path in entry.iterdir():
            if path.name == KEY_FILE:
                continue
            with contextlib.suppress(FileNotFoundError):
                is_window = path.suffix == ".parquet" and not path.name.startswith(".")
                if cutoff is not None and path.stat().st_mtime >= cutoff:
                    continue
                path.unlink()
                removed += is_window
        if not any(p.name != KEY_FILE for p in entry.iterdir()):
            with contextlib.suppress(OSError):
                (entry / KEY_FILE).unlink(missing_ok=True)
                entry.rmdir()
    return removed


def describe_span(span: tuple[int, int] | None) -> str:
    """``2026-10-01 .. 2026-10-31`` for a span of window starts and ends (epoch ms)."""
    if span is None:
        return "-"
    first = dt.datetime.fromtimestamp(span[0] / 1000, dt.UTC)
    last = dt.datetime.fromtimestamp(span[1] / 1000, dt.UTC)
    return f"{first:%Y-%m-%d %H:%M} .. {last:%Y-%m-%d %H:%M} UTC"


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover - the loop returns


def _count(n: int, one: str, many: str = "") -> str:
    """``1 window``, ``3 windows``."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def cache_command(action: str, *, older_than: float | None = None) -> int:
    """``opslib cache info`` and ``opslib cache clear [--older-than DAYS]``; the exit status.

    Examples
    --------
    >>> cache_command("info")  # doctest: +SKIP
    event cache: /home/me/.cache/opslib/events
    """
    if action == "info":
        info = cache_info()
        print(f"event cache: {info.path}")
        print(
            f"{_size(info.bytes)} in {_count(info.windows, 'window')}, "
            f"{_count(len(info.platforms), 'platform')}"
        )
        for platform, stats in sorted(info.platforms.items()):
            print(
                f"  {platform}: {_count(stats['windows'], 'window')}, {_size(stats['bytes'])}, "
                f"{_count(stats['queries'], 'query', 'queries')}, "
                f"{_count(stats['callers'], 'caller')}, {describe_span(stats['span'])}"
            )
        return 0
    if action == "clear":
        try:
            removed = clear_cache(older_than)
        except ValueError:
            print(
                f"opslib cache clear: --older-than {older_than}: not a number of days; "
                "accepted: 0 or more; nothing was removed",
                file=sys.stderr,
            )
            return 2
        when = "" if older_than is None else f" cached more than {older_than:g} days ago"
        print(f"removed {_count(removed, 'window')}{when} from {cache_dir()}")
        return 0
    raise AssertionError(action)  # argparse refuses unknown actions
