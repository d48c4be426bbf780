"""One benchmark case in its own process, so its peak RSS is its own.

    python -m benchmarks.worker CASE BASE_URL '<json options>'

prints one JSON line: {"seconds": ..., "rows": ..., "client_cpu_s": ..., "peak_rss_mb": ...}.
``seconds`` and ``client_cpu_s`` (user + system CPU of this process) cover the read alone:
logging in comes before the clock starts, unless the option ``timed_login`` is true (the
shaped-link cases of benchmarks/network.py: a far platform's login is part of what a user
waits for). Given ``server_pid`` (the platform runs on the
same machine), ``server_cpu_s`` is the platform process's CPU over the same span.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import resource
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pandas as pd

from benchmarks._platform import login
from opslib.server import demo


def _envelope(user_id: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"message_id": str(uuid.uuid4()), "user_id": user_id, "params": params}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _process_cpu(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc), 0 without one."""
    if not pid:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Clock:
    """Wall time, this process's CPU and the platform's CPU from start to stop."""

    def __init__(self, opts: dict[str, Any]) -> None:
        self.pid = opts.get("server_pid")
        self.server0 = _process_cpu(self.pid)
        self.cpu0 = _cpu()
        self.t0 = time.perf_counter()

    def stop(self, rows: int) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seconds": time.perf_counter() - self.t0,
            "rows": rows,
            "client_cpu_s": round(_cpu() - self.cpu0, 3),
        }
        if self.pid:
            out["server_cpu_s"] = round(_process_cpu(self.pid) - self.server0, 3)
        return out


def events_naive(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """What users write by hand: sequential httpx over page_no, json_normalize at the end."""
    timed = _Clock(opts) if opts.get("timed_login") else None
    user_id, token = login(base)
    logged_in = time.perf_counter()
    page_size = int(opts.get("page_size", 1000))
    rows: list[dict[str, Any]] = []
    page = 1
    clock = timed or _Clock(opts)
    with httpx.Client(timeout=120) as client:
        while True:
            params = {
                "access_token": token,
                "query_model": 3,
                "start": opts["start"],
                "end": opts["end"],
                "page_no": page,
                "page_size": page_size,
            }
            r = client.post(f"{base}/device/query_record", json=_envelope(user_id, params))
            batch = r.json()["data"]["events_list"]
            rows.extend(batch)
            if len(batch) < page_size:
                break
            page += 1
    df = pd.json_normalize(rows)
    result = clock.stop(len(df))
    if timed is not None:
        result["login_s"] = round(logged_in - timed.t0, 3)
    return result


def events_naive_vendor(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """The same loop written from the vendor platform's documentation (``opslib server
    --dialect vendor``, opslib/dialects/vendor.py): ``start``/``end`` in epoch seconds, at
    most 100 rows a page, ``total`` counting pages, a failure only in the body of an HTTP 200.
    """
    timed = _Clock(opts) if opts.get("timed_login") else None
    user_id, token = login(base)
    logged_in = time.perf_counter()
    page_size = min(int(opts.get("page_size", 100)), 100)
    rows: list[dict[str, Any]] = []
    page = 1
    clock = timed or _Clock(opts)
    with httpx.Client(timeout=120) as client:
        while True:
            params = {
                "access_token": token,
                "query_model": 3,
                "start": opts["start"] // 1000,
                "end": opts["end"] // 1000,
                "page_no": page,
                "page_size": page_size,
            }
            body = client.post(f"{base}/device/query_record", json=_envelope(user_id, params))
            answer = body.json()
            if answer.get("error_code") != 200:
                raise RuntimeError(f"page {page}: {answer}")
            rows.extend(answer["data"]["events_list"])
            if page >= answer["data"]["total"]:  # total counts pages
                break
            page += 1
    df = pd.json_normalize(rows)
    result = clock.stop(len(df))
    if timed is not None:
        result["login_s"] = round(logged_in - timed.t0, 3)
    return result


def _connect(base: str, **options: Any) -> Any:
    import opslib

    return opslib.connect(
        base,
        client_id=demo.CLIENT_ID,
        client_secret=demo.CLIENT_SECRET,
        area_code=demo.AREA_CODE,
        phone=demo.OPS_PHONE,
        password=demo.OPS_PASSWORD,
        **options,
    )


def _client(base: str, **options: Any) -> Any:
    client = _connect(base, **options)
    client.products.categories()  # log in before the clock starts
    client.devices.list(limit=1)  # and learn that the fleet may be read (one request)
    return client


def events_opslib(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """opslib's events.list into the typed frame.

    Options: ``page_size``; ``concurrency`` (``connect(concurrency=)``, default its
    default); ``warm``: first a read of ``concurrency + 1`` pages, so that the timed read
    finds every connection it uses open (cold: only the login's connection);
    ``gc_threshold``: the read inside ``opslib.gc_threshold(N)``, the opt-in that runs the
    collector less often; ``timed_login``: the clock starts before ``connect()``;
    ``dialect``: the platform's (``connect(dialect=)``); ``http2``: over httpx's HTTP/2
    (``connect(transport=httpx.HTTPTransport(http1=False, http2=True))``).
    """
    import opslib

    page_size = int(opts.get("page_size", 1000))
    options: dict[str, Any] = {}
    if "concurrency" in opts:
        options["concurrency"] = int(opts["concurrency"])
    if "dialect" in opts:
        options["dialect"] = opts["dialect"]
    if opts.get("http2"):  # HTTP/2 only, by prior knowledge (the platform: hypercorn)
        options["transport"] = httpx.HTTPTransport(http1=False, http2=True)
    if opts.get("timed_login"):
        clock = _Clock(opts)
        client = _connect(base, **options)  # logs in
        logged_in = time.perf_counter()
        df = client.events.list(opts["start"], opts["end"], progress=False, page_size=page_size)
        return {**clock.stop(len(df)), "login_s": round(logged_in - clock.t0, 3)}
    default = inspect.signature(opslib.connect).parameters["concurrency"].default
    concurrency = options.get("concurrency", default)
    client = _client(base, **options)
    if opts.get("warm"):
        warm = page_size * (concurrency + 1)
        client.events.list(
            opts["start"], opts["end"], progress=False, page_size=page_size, limit=warm
        )
    collector = contextlib.nullcontext()
    if "gc_threshold" in opts:  # the opt-in a user would ask for
        collector = opslib.gc_threshold(int(opts["gc_threshold"]))
    with collector:
        clock = _Clock(opts)
        df = client.events.list(opts["start"], opts["end"], progress=False, page_size=page_size)
        return clock.stop(len(df))


def devices_opslib(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """opslib's devices.list of the whole fleet."""
    client = _client(base)
    clock = _Clock(opts)
    df = client.devices.list(progress=False)
    return clock.stop(len(df))


CASES: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "events_naive": events_naive,
    "events_naive_vendor": events_naive_vendor,
    "events_opslib": events_opslib,
    "devices_opslib": devices_opslib,
}


def main() -> None:
    case, base, raw = sys.argv[1], sys.argv[2], sys.argv[3]
    result = CASES[case](base, json.loads(raw))
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["peak_rss_mb"] = own
    print(json.dumps(result))


if __name__ == "__main__":
    main()
