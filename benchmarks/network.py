"""Reads across a shaped link (benchmarks/shaped_link.py): what users of a far platform meet.

Each case serves the demo fleet (``opslib seed --scale demo``: 5,000 devices, 1M events
over 30 days) with ``opslib server`` at its default settings (the per-token rate limit on),
puts a shaped link in front of it, and alternates in fresh processes, ``repeat`` rounds:

- **opslib**: ``opslib.connect()`` then ``events.list()`` of the window;
- **the hand-written loop**: log in with httpx, then sequential httpx over ``page_no``
  (httpx accepts gzip and zstd by default) and ``pandas.json_normalize`` at the end.

``link_100_rows`` serves the same fleet with ``opslib server --dialect vendor``: a platform
capped at 100 rows a page, ``total`` in pages, epoch-second ``start``/``end``, failures in
HTTP 200 bodies (opslib/dialects/vendor.py). opslib connects with ``dialect="vendor"``; the
hand-written loop speaks that wire (``events_naive_vendor``).

Both clocks start before logging in. The floor is what the link cannot beat: the bytes
opslib's run moved to the client (compressed) over the bandwidth, plus the round trips of
the login and of the token exchange. Each round also runs opslib's same read on loopback
(no link, no compression: ``opslib_loopback_s``), what this machine's CPUs allow client
and platform together; ``opslib_vs_floor_here`` is opslib over the larger of the two
floors. ``opslib_login_s`` says how much of opslib's time went
to logging in (the platform hashes the password: its CPU, not the link).

``protocol_floor_s`` is what any client of this interface pays at the least: the bytes,
four round trips (its first connection's handshake, the login, the token exchange, and
one for the pages, which need the access token) and the login on loopback (the
platform's password hash: ``loopback_login_s``). ``protocol_floor_vs_floor`` above 1.5
means the issue's 1.5× target is out of reach of any client.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks import _platform, shaped_link


@dataclass(frozen=True)
class Link:
    """A benchmark case: a window of the demo fleet read across a shaped link."""

    name: str
    title: str
    rtt_ms: float
    mbit: float
    days: int
    page_size: int = 1000
    dialect: str = "opslib"  # the platform's: opslib server --dialect
    host: str | None = None  # where the link listens (None: this machine's non-loopback address)
    # also read through the same link on this machine's non-loopback address, in the same
    # rounds (events_opslib_far): a tunnel's case against (a)'s
    compare_far: bool = False


# The hand-written loop for each dialect's wire (benchmarks/worker.py).
NAIVE = {"opslib": "events_naive", "vendor": "events_naive_vendor"}


LINKS = {
    "link_40ms": Link("link_40ms", "7 days at 40 ms RTT, 100 Mbit/s", 40, 100, 7),
    # (a) through a tunnel: the same link on a loopback address (ssh -L, kubectl
    # port-forward): the client must measure that the platform is far, not guess it
    "link_40ms_tunnel": Link(
        "link_40ms_tunnel",
        "7 days at 40 ms RTT, 100 Mbit/s, through a tunnel (a loopback address)",
        40,
        100,
        7,
        host="127.0.0.1",
        compare_far=True,
    ),
    "link_150ms": Link("link_150ms", "1 day at 150 ms RTT, 20 Mbit/s", 150, 20, 1),
    # the published platform serves at most 100 rows a page: the vendor dialect's platform
    "link_100_rows": Link(
        "link_100_rows",
        "7 days at 40 ms RTT, 100 Mbit/s, a platform serving 100 rows a page (vendor)",
        40,
        100,
        7,
        100,
        "vendor",
    ),
}


@dataclass
class Proxy:
    address: str  # host:port a client connects to
    stats: str  # host:port of the byte counters
    process: subprocess.Popen[str]

    def bytes(self) -> tuple[int, int]:
        return shaped_link.read_stats(self.stats)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def start_proxy(base_url: str, rtt_ms: float, mbit: float, host: str | None = None) -> Proxy:
    to = base_url.removeprefix("http://")
    cmd = [sys.executable, "-m", "benchmarks.shaped_link", "--to", to]
    cmd += ["--rtt-ms", str(rtt_ms), "--mbit", str(mbit)]
    if host is not None:
        cmd += ["--host", host]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    words = proc.stdout.readline().split()  # LISTEN host:port STATS host:port
    if len(words) != 4:
        proc.kill()
        raise RuntimeError("the shaped link did not start")
    return Proxy(words[1], words[3], proc)


def window(until: str, days: int) -> dict[str, int]:
    end = datetime.fromisoformat(until)
    start = end - timedelta(days=days)
    return {"start": int(start.timestamp() * 1000), "end": int(end.timestamp() * 1000)}


def run_link(
    link: Link,
    until: str,
    repeat: int,
    run_once: Any,
    server_pid: int,
    base_url: str,
    old: Sequence[Path] = (),
    loop: bool = True,
) -> dict[str, Any]:
    """``repeat`` alternated rounds of both readers across ``link``; medians and ratios.
    Each checkout in ``old`` reads across the link too, in the same rounds (``old``: its
    median, client CPU, and seconds over this code's); ``loop=False`` leaves the
    hand-written loop out."""
    proxy = start_proxy(base_url, link.rtt_ms, link.mbit, link.host)
    far = start_proxy(base_url, link.rtt_ms, link.mbit) if link.compare_far else None
    opts = {**window(until, link.days), "page_size": link.page_size, "timed_login": True}
    opts["dialect"] = link.dialect
    runs: dict[str, list[dict[str, Any]]] = {
        "events_naive": [],
        "events_opslib": [],
        "events_opslib_loopback": [],
    }
    if not loop:
        del runs["events_naive"]
    if far is not None:
        runs["events_opslib_far"] = []
    worker_case = {
        "events_naive": NAIVE[link.dialect],
        "events_opslib": "events_opslib",
        "events_opslib_loopback": "events_opslib",
        "events_opslib_far": "events_opslib",
    }
    code: dict[str, Path | None] = dict.fromkeys(runs)
    for path in old:
        name = f"events_opslib@{path}"
        runs[name], worker_case[name], code[name] = [], "events_opslib", path
    try:
        url = f"http://{proxy.address}"
        for _ in range(repeat):
            for case in runs:
                down0, up0 = proxy.bytes()
                # the same read without the link: what this machine's CPUs allow
                to = base_url if case == "events_opslib_loopback" else url
                if case == "events_opslib_far" and far is not None:
                    to = f"http://{far.address}"
                result = run_once(worker_case[case], to, opts, server_pid, code[case])
                down1, up1 = proxy.bytes()
                result["bytes_to_client"] = down1 - down0
                result["bytes_to_platform"] = up1 - up0
                runs[case].append(result)
    finally:
        proxy.stop()
        if far is not None:
            far.stop()
    fast = statistics.median(r["seconds"] for r in runs["events_opslib"])
    naive = statistics.median(r["seconds"] for r in runs.get("events_naive", [])) if loop else 0
    wire = statistics.median(r["bytes_to_client"] for r in runs["events_opslib"])
    floor = wire * 8 / (link.mbit * 1e6) + 2 * link.rtt_ms / 1000
    loopback = statistics.median(r["seconds"] for r in runs["events_opslib_loopback"])
    here = max(floor, loopback)
    hash_s = statistics.median(r["login_s"] for r in runs["events_opslib_loopback"])
    protocol = wire * 8 / (link.mbit * 1e6) + 4 * link.rtt_ms / 1000 + hash_s
    return {
        "case": link.name,
        "title": link.title,
        "link_address": proxy.address,
        "rtt_ms": link.rtt_ms,
        "mbit": link.mbit,
        "days": link.days,
        "page_size": link.page_size,
        "dialect": link.dialect,
        "rows": runs["events_opslib"][0]["rows"],
        "opslib_s": round(fast, 3),
        "naive_s": round(naive, 3),
        "floor_s": round(floor, 3),
        "opslib_mb_on_wire": round(wire / 1e6, 2),
        "naive_mb_on_wire": round(
            statistics.median(r["bytes_to_client"] for r in runs["events_naive"]) / 1e6, 2
        )
        if loop
        else 0,
        "opslib_login_s": round(statistics.median(r["login_s"] for r in runs["events_opslib"]), 3),
        "opslib_client_cpu_s": round(
            statistics.median(r["client_cpu_s"] for r in runs["events_opslib"]), 3
        ),
        "opslib_vs_floor": round(fast / floor, 2),
        "opslib_loopback_s": round(loopback, 3),
        "opslib_vs_floor_here": round(fast / here, 2),
        "loopback_login_s": round(hash_s, 3),
        "protocol_floor_s": round(protocol, 3),
        "protocol_floor_vs_floor": round(protocol / floor, 2),
        "opslib_vs_protocol_floor": round(fast / protocol, 2),
        "speedup_vs_naive": round(naive / fast, 2) if loop else 0,
        **(
            {
                "far_address": far.address,
                "opslib_far_s": round(
                    statistics.median(r["seconds"] for r in runs["events_opslib_far"]), 3
                ),
                "here_vs_far": round(
                    fast / statistics.median(r["seconds"] for r in runs["events_opslib_far"]), 2
                ),
            }
            if far is not None
            else {}
        ),
        "old": [
            {
                "code": str(path),
                "opslib_s": round(statistics.median(r["seconds"] for r in rs), 3),
                "client_cpu_s": round(statistics.median(r["client_cpu_s"] for r in rs), 3),
                "vs_opslib": round(statistics.median(r["seconds"] for r in rs) / fast, 2),
            }
            for path in old
            for rs in [runs[f"events_opslib@{path}"]]
        ],
        "runs": runs,
    }


def run_links(
    names: list[str],
    until: str,
    repeat: int,
    run_once: Any,
    old: Sequence[Path] = (),
    loop: bool = True,
) -> list[dict[str, Any]]:
    """The cases ``names`` of :data:`LINKS`, one after another, each over a demo platform
    speaking its dialect (``old``, ``loop``: as :func:`run_link`)."""
    db = _platform.ensure_db("demo", until)
    out = []
    for name in names:
        link = LINKS[name]
        platform = _platform.start(db, rate_limit=True, dialect=link.dialect)
        try:
            pid, base = platform.process.pid, platform.base_url
            out.append(run_link(link, until, repeat, run_once, pid, base, old, loop))
        finally:
            platform.stop()
    return out


def run_http2(names: list[str], until: str, repeat: int, run_once: Any) -> list[dict[str, Any]]:
    """HTTP/1.1 against HTTP/2 (httpx's, ``http2=True``): the cases ``names`` of
    :data:`LINKS` and the same reads on loopback, all from one hypercorn platform (uvicorn
    speaks no HTTP/2), rounds alternated; opslib alone, login included."""
    db = _platform.ensure_db("demo", until)
    out = []
    for name in names:
        link = LINKS[name]
        platform = _platform.start(db, rate_limit=True, dialect=link.dialect, server="hypercorn")
        proxy = start_proxy(platform.base_url, link.rtt_ms, link.mbit, link.host)
        opts = {**window(until, link.days), "page_size": link.page_size, "timed_login": True}
        opts["dialect"] = link.dialect
        ways = {
            "http1_link": (f"http://{proxy.address}", False),
            "http2_link": (f"http://{proxy.address}", True),
            "http1_loopback": (platform.base_url, False),
            "http2_loopback": (platform.base_url, True),
        }
        runs: dict[str, list[dict[str, Any]]] = {way: [] for way in ways}
        try:
            for _ in range(repeat):
                for way, (url, h2) in ways.items():
                    case_opts = {**opts, "http2": h2}
                    runs[way].append(
                        run_once("events_opslib", url, case_opts, platform.process.pid, None)
                    )
        finally:
            proxy.stop()
            platform.stop()
        row: dict[str, Any] = {"case": name, "title": link.title, "server": "hypercorn"}
        for way, rs in runs.items():
            row[f"{way}_s"] = round(statistics.median(r["seconds"] for r in rs), 3)
            row[f"{way}_cpu_s"] = round(statistics.median(r["client_cpu_s"] for r in rs), 3)
            row[f"{way}_runs"] = [round(r["seconds"], 2) for r in rs]
        row["http2_vs_http1_link"] = round(row["http1_link_s"] / row["http2_link_s"], 2)
        row["http2_vs_http1_loopback"] = round(row["http1_loopback_s"] / row["http2_loopback_s"], 2)
        out.append(row)
    return out
