"""Where the client's time goes in a bulk read of events, step by step.

    .venv/bin/python -m benchmarks.breakdown [--pages 100]

Serves the bench seed (as ``make bench`` does: 1M events over 30 days, loopback, no rate
limit), reads ``--pages`` pages of 1000 events of that window one after another through
opslib's own read path (the pager of ``events.list``), and times each step in this thread
(``time.thread_time``: this thread's CPU, not the platform's), per page and scaled to the
1,000 pages of 1M events:

- ``exchange``: ``Pager.fetch``: the request through httpx, the zstd answer decoded, the
  JSON parsed (``orjson.loads``) and the envelope checked;
- ``of which httpx``: the same request sent again through the session's ``httpx.Client``
  (``send``: headers, the connection, the body read and its zstd decoded);
- ``of which zstd``: decoding that page's compressed body alone;
- ``of which orjson.loads``: parsing the same page's JSON again alone;
- ``typing``: ``Pager._page`` on the fetched page: the page's checks and
  ``page_columns`` (its records to typed Arrow columns);
- ``join``: ``build_frame`` and ``dedupe_and_sort`` over the pages (the end of a read;
  wall time, as it joins columns on two threads), scaled by pages.

- ``codecs``: each of the first 4 pages' JSON (uncompressed, as the platform builds it)
  compressed 30 times with zstd and with zlib's deflate (gzip's), levels 1 and 3/6: the
  size and the time of each (the platform uses level 1 of both).

The steps run one at a time in one thread: what they add up to is the least CPU the
reading process needs; a read's own client CPU (``make bench``, case ``events``) above it
is what running the pages in a pool of threads adds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
import zlib
from typing import Any

import orjson
import zstandard

from benchmarks import _platform
from benchmarks.__main__ import UNTIL, _window
from benchmarks.worker import _client
from opslib.client.frames.build import build_frame, dedupe_and_sort, join_order


def _cpu(fn: Any, *args: Any) -> tuple[float, Any]:
    t0 = time.thread_time()
    out = fn(*args)
    return time.thread_time() - t0, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.breakdown")
    ap.add_argument("--pages", type=int, default=100)
    args = ap.parse_args(argv)
    start, end = _window()
    platform = _platform.start(_platform.ensure_db("bench", UNTIL))
    try:
        client = _client(platform.base_url)
        pager = client.events._pager({"query_model": 3}, start, end)
        http = client._session.http._client  # the session's httpx.Client
        plain: list[bytes] = []
        token = str(client._session.tokens.access_token())
        exchange, send, unzstd, parse, typing, pages = [], [], [], [], [], []
        for no in range(1, args.pages + 1):
            seconds, data = _cpu(pager.fetch, no)
            exchange.append(seconds)
            body = {"message_id": str(uuid.uuid4()), "user_id": client._session.user_id, "params": {
                "access_token": token, "query_model": 3, "start": start, "end": end,
                "page_no": no, "page_size": 1000}}  # fmt: skip
            request = http.build_request("POST", pager.operation, json=body)
            send.append(_cpu(http.send, request)[0])
            body["message_id"] = str(uuid.uuid4())
            with http.stream("POST", pager.operation, json=body) as raw:
                packed = b"".join(raw.iter_raw())
                coding = raw.headers.get("content-encoding")
            assert coding == "zstd", (coding, raw.status_code, packed[:200])
            if len(plain) < 4:
                plain.append(zstandard.ZstdDecompressor().decompressobj().decompress(packed))
            unzstd.append(_cpu(zstandard.ZstdDecompressor().decompressobj().decompress, packed)[0])
            text = orjson.dumps(data)
            parse.append(_cpu(orjson.loads, text)[0])
            seconds, page = _cpu(pager._page, no, data)
            typing.append(seconds)
            pages.append(page.columns)
        schema = pager.schema
        t0 = time.perf_counter()
        order = join_order(pages)
        df = dedupe_and_sort(build_frame(pages, schema), schema, order=order)
        join = time.perf_counter() - t0
    finally:
        platform.stop()
    scale = 1000
    print(f"{len(df)} rows in {args.pages} pages; client CPU of this thread")
    print("step | ms a page (median) | s per 1M events")
    print("--- | --- | ---")
    for name, values in (
        ("exchange (httpx, zstd, orjson, envelope)", exchange),
        ("of which httpx (send, body read, zstd)", send),
        ("of which zstd", unzstd),
        ("of which orjson.loads", parse),
        ("typing (page_columns and checks)", typing),
    ):
        median = statistics.median(values)
        print(f"{name} | {median * 1000:.2f} | {median * scale:.2f}")
    per_page = join / args.pages
    print(f"join (build_frame, dedupe_and_sort) | {per_page * 1000:.2f} | {per_page * scale:.2f}")
    print(f"\ncodec | kB a page (JSON: {statistics.median(map(len, plain)) / 1000:.1f}) | ms")
    print("--- | --- | ---")
    for name, fn in (
        ("zstd-1", zstandard.ZstdCompressor(level=1).compress),
        ("zstd-3", zstandard.ZstdCompressor(level=3).compress),
        ("deflate-1 (gzip-1)", lambda b: zlib.compress(b, 1)),
        ("deflate-6 (gzip-6)", lambda b: zlib.compress(b, 6)),
    ):
        times, sizes = [], []
        for body in plain:
            for _ in range(30):
                seconds, out = _cpu(fn, body)
                times.append(seconds)
            sizes.append(len(out))
        size = statistics.median(sizes) / 1000
        print(f"{name} | {size:.1f} | {statistics.median(times) * 1000:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
