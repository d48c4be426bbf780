"""Where the client's time goes in a bulk read of events, step by step.

    .venv/bin/python -m benchmarks.breakdown [--pages 100]

Serves the bench seed (as ``make bench`` does: 1M events over 30 days, loopback, no rate
limit), reads ``--pages`` pages of 1000 events of that window one after another through
opslib's own read path (the pager of ``events.list``), and times each step in this thread
(``time.thread_time``: this thread's CPU, not the platform's), per page and scaled to the
1,000 pages of 1M events:

- ``exchange``: ``Pager.fetch``: the request through httpx, the zstd answer decoded, the
  JSON parsed (``orjson.loads``) and the envelope checked;
- ``of which httpx``: the same request sent again through the session's transport
  (``HTTP._exchange``: httpx's ``handle_request``, the body read and its zstd decoded);
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

    .venv/bin/python -m benchmarks.breakdown --read [--seed demo] [--rounds 2]

instead times the steps inside whole reads: ``events.list`` of the seed's 1M events in
this process, as a user's read runs (its pool of threads, its pages in flight), each step
timed with the CPU clock of the thread running it and summed over the pool: the
exchange (``HTTP._exchange``), the parse (``orjson.loads`` in turn), the typing
(``Pager._typed``, of which the open object's members, ``page_property_values``), the
rest of a page (the session's call, the envelope); then the collector's passes by
generation (``gc.callbacks``), and the process's user and system CPU, minor page faults
and voluntary context switches (``getrusage``).
"""

from __future__ import annotations

import argparse
import collections
import gc
import resource
import statistics
import sys
import threading
import time
import uuid
import zlib
from typing import Any

import httpx
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


def _request(http: Any, path: str, body: dict[str, Any]) -> httpx.Request:
    return http._request(path, content=orjson.dumps(body))


class _Steps:
    """Thread CPU summed per step over every thread; the collector's time by the step it
    interrupted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._local = threading.local()
        self.reset()

    def reset(self) -> None:
        self.cpu: collections.Counter[str] = collections.Counter()
        self.calls: collections.Counter[str] = collections.Counter()
        self.passes: collections.Counter[int] = collections.Counter()
        self.gc_cpu: collections.Counter[int] = collections.Counter()

    def wrap(self, owner: Any, name: str, step: str) -> None:
        fn = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.thread_time() - t0
                with self._lock:
                    self.cpu[step] += spent
                    self.calls[step] += 1

        setattr(owner, name, timed)

    def collected(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._local.gc_started = time.thread_time()
            return
        spent = time.thread_time() - getattr(self._local, "gc_started", time.thread_time())
        with self._lock:
            self.passes[info["generation"]] += 1
            self.gc_cpu[info["generation"]] += spent


def _in_read(seed: str, rounds: int) -> None:
    from opslib.client.frames import build

    start, end = _window()
    steps = _Steps()  # the read path's steps, timed in this process from the first read on
    platform = _platform.start(_platform.ensure_db(seed, UNTIL))
    try:
        for round_no in range(rounds):
            client = _client(platform.base_url)
            if round_no == 0:  # the classes of the read path, as the client holds them
                steps.wrap(type(client._session.http), "_exchange", "exchange")
                steps.wrap(orjson, "loads", "parse")  # called by the client in turn
                pager = type(client.events._pager({"query_model": 3}, start, end))
                steps.wrap(pager, "_typed", "typing")
                steps.wrap(build, "page_property_values", "members")
                steps.wrap(pager, "_page", "page")
            steps.reset()
            gc.callbacks.append(steps.collected)
            before = resource.getrusage(resource.RUSAGE_SELF)
            t0 = time.perf_counter()
            df = client.events.list(start, end, progress=False)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_SELF)
            gc.callbacks.remove(steps.collected)
            pages = steps.calls["page"]
            user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
            print(
                f"\n{len(df)} rows, {pages} pages in {wall:.2f} s; client CPU {user + system:.2f} s"
                f" (user {user:.2f}, system {system:.2f}), {after.ru_minflt - before.ru_minflt}"
                f" minor page faults, {after.ru_nvcsw - before.ru_nvcsw} voluntary switches"
            )
            print("step (every thread) | ms a page | s in the read")
            print("--- | --- | ---")
            rest = (
                steps.cpu["page"] - steps.cpu["exchange"] - steps.cpu["parse"] - steps.cpu["typing"]
            )
            for name, seconds in (
                ("exchange (HTTP._exchange)", steps.cpu["exchange"]),
                ("parse (orjson.loads, in turn)", steps.cpu["parse"]),
                ("typing (Pager._typed)", steps.cpu["typing"]),
                ("of which the members (page_property_values)", steps.cpu["members"]),
                ("the rest of a page (call, envelope, checks)", rest),
            ):
                print(f"{name} | {seconds / pages * 1000:.2f} | {seconds:.2f}")
            for gen in sorted(steps.passes):
                seconds = steps.gc_cpu[gen]
                print(
                    f"collector, generation {gen}: {steps.passes[gen]} passes | "
                    f"{seconds / pages * 1000:.2f} | {seconds:.2f}"
                )
    finally:
        platform.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.breakdown")
    ap.add_argument("--pages", type=int, default=100)
    ap.add_argument("--read", action="store_true", help="time the steps inside whole reads")
    ap.add_argument("--seed", default="bench", choices=("bench", "demo"))
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    if args.read:
        _in_read(args.seed, args.rounds)
        return 0
    start, end = _window()
    platform = _platform.start(_platform.ensure_db("bench", UNTIL))
    try:
        client = _client(platform.base_url)
        pager = client.events._pager({"query_model": 3}, start, end)
        http = client._session.http  # the session's transport, through HTTP._exchange
        plain: list[bytes] = []
        token = str(client._session.tokens.access_token())
        exchange, send, unzstd, parse, typing, pages = [], [], [], [], [], []
        for no in range(1, args.pages + 1):
            seconds, data = _cpu(pager.fetch, no)
            exchange.append(seconds)
            body = {"message_id": str(uuid.uuid4()), "user_id": client._session.user_id, "params": {
                "access_token": token, "query_model": 3, "start": start, "end": end,
                "page_no": no, "page_size": 1000}}  # fmt: skip
            send.append(_cpu(http._exchange, _request(http, pager.operation, body))[0])
            body["message_id"] = str(uuid.uuid4())
            raw = http._transport.handle_request(_request(http, pager.operation, body))
            packed = b"".join(raw.stream)  # as it came: compressed
            raw.close()
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
