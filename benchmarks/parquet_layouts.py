"""How fast the event cache's windows decode, for several Parquet layouts.

    .venv/bin/python -m benchmarks.parquet_layouts [--rounds 5]

Serves the bench seed (as ``make bench`` does: 1M events over 30 days, loopback, no rate
limit), fills an empty event cache with ``events.list(cache=True)`` over the 30 days, then
writes its 30 windows again in each layout below and decodes each set into Arrow tables as
a cached read does (memory-mapped, without the rows' raw properties, two windows at once;
the columns' conversion to the frame that follows is the same for every layout), the
layouts alternated round by round. Prints each layout's size on disk and the
median seconds to decode the 30 windows.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks import _platform, cache_dask
from benchmarks.__main__ import UNTIL, _window

RAW = "__properties__"  # the column of each row's raw properties, read only for a part of a window

LAYOUTS: dict[str, dict[str, Any]] = {
    "lz4, no dictionary (the cache's)": {"compression": "lz4", "use_dictionary": False},
    "snappy, dictionaries (pyarrow's default)": {"compression": "snappy", "use_dictionary": True},
    "zstd, dictionaries": {"compression": "zstd", "use_dictionary": True},
    "none, no dictionary": {"compression": "none", "use_dictionary": False},
}


def _decode(path: Path) -> Any:
    import pyarrow.dataset as ds
    from pyarrow import fs

    window = ds.dataset(path, format="parquet", filesystem=fs.LocalFileSystem(use_mmap=True))
    names = [n for n in window.schema.names if n != RAW]
    return window.to_table(columns=names, use_threads=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.parquet_layouts")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    import pyarrow.parquet as pq

    start, end = _window()
    with tempfile.TemporaryDirectory(prefix="opslib-bench-layouts-") as tmp:
        root = Path(tmp)
        platform = _platform.start(_platform.ensure_db("bench", UNTIL))
        try:
            os.environ["OPSLIB_CACHE_DIR"] = str(root / "cache")
            cache_dask.cache_read(platform.base_url, {"start": start, "end": end})
        finally:
            platform.stop()
        windows = sorted((root / "cache").glob("v1/*/*.parquet"))
        sets: dict[str, list[Path]] = {}
        for i, (name, options) in enumerate(LAYOUTS.items()):
            out = root / f"layout{i}"
            out.mkdir()
            for path in windows:
                pq.write_table(pq.read_table(path), out / path.name, **options)
            sets[name] = sorted(out.glob("*.parquet"))
        seconds: dict[str, list[float]] = {name: [] for name in LAYOUTS}
        for _ in range(args.rounds):
            for name, files in sets.items():
                t0 = time.perf_counter()
                with ThreadPoolExecutor(2) as pool:
                    list(pool.map(_decode, files))
                seconds[name].append(time.perf_counter() - t0)
        print(f"{len(windows)} windows, load average {os.getloadavg()[0]:.1f}")
        for name, runs in seconds.items():
            mb = sum(p.stat().st_size for p in sets[name]) / 2**20
            shown = " ".join(f"{s:.3f}" for s in runs)
            print(f"{name}: {mb:.1f} MB, {statistics.median(runs):.3f} s ({shown})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
