"""Server-alone cases: first vs deep page latency, and /device/query requests per second."""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from typing import Any

import httpx

from benchmarks._platform import login


def _post(client: httpx.Client, url: str, user_id: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"message_id": str(uuid.uuid4()), "user_id": user_id, "params": params}
    r = client.post(url, json=body)
    r.raise_for_status()
    return r.json()["data"]  # type: ignore[no-any-return]


def page_latency(base: str, *, start: int, end: int, repeat: int = 15) -> dict[str, Any]:
    """Median latency of page 1 and of the page 90% deep, 1000 rows each, events and devices."""
    user_id, token = login(base)
    out: dict[str, Any] = {}
    with httpx.Client(timeout=60) as client:
        ev = {"access_token": token, "query_model": 3, "start": start, "end": end}
        dv = {"access_token": token, "user_id": ""}
        for name, path, params in (
            ("events", "/device/query_record", ev),
            ("devices", "/device/query_by_user", dv),
        ):
            total = _post(client, base + path, user_id, {**params, "page_size": 1})["total"]
            pages = max(1, -(-total // 1000))
            deep = max(1, int(pages * 0.9))
            timings: dict[int, list[float]] = {1: [], deep: []}
            for _ in range(repeat):
                for page in (1, deep):
                    t0 = time.perf_counter()
                    data = _post(
                        client, base + path, user_id, {**params, "page_no": page, "page_size": 1000}
                    )
                    timings[page].append(time.perf_counter() - t0)
                    assert data["page_no"] == page
            first, deep_ms = (statistics.median(timings[p]) * 1000 for p in (1, deep))
            out[name] = {
                "total": total,
                "deep_page": deep,
                "first_ms": round(first, 2),
                "deep_ms": round(deep_ms, 2),
                "ratio": round(deep_ms / first, 2),
            }
    return out


def device_query_rps(
    base: str, *, threads: int = 4, seconds: float = 10.0, max_requests: int = 50_000
) -> dict[str, Any]:
    """Requests/s for /device/query from ``threads`` keep-alive clients on loopback (bounded)."""
    user_id, token = login(base)
    with httpx.Client(timeout=30) as c:
        data = _post(
            c,
            base + "/device/query_by_user",
            user_id,
            {"access_token": token, "user_id": "", "page_size": 200},
        )
    ids = [d["device_id"] for d in data["device_list"]]
    counts = [0] * threads
    errors = [0] * threads
    stop_at = time.monotonic() + seconds

    def run(i: int) -> None:
        with httpx.Client(timeout=30) as client:
            n = 0
            while time.monotonic() < stop_at and sum(counts) < max_requests:
                params = {"access_token": token, "device_id": ids[n % len(ids)]}
                body = {"message_id": str(uuid.uuid4()), "user_id": user_id, "params": params}
                r = client.post(base + "/device/query", json=body)
                if r.status_code != 200:
                    errors[i] += 1
                counts[i] += 1
                n += 1

    t0 = time.perf_counter()
    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - t0
    return {
        "threads": threads,
        "requests": sum(counts),
        "errors": sum(errors),
        "rps": round(sum(counts) / elapsed, 1),
    }


def _cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def transport_cost(base: str, *, start: int, end: int, pages: int = 200) -> list[dict[str, Any]]:
    """The client's CPU per 1000-event page for the HTTP exchange alone (no JSON decoding):
    httpx (what opslib uses) against the standard library's http.client, the same pages
    fetched one after another over one keep-alive connection, in this process."""
    import http.client
    from urllib.parse import urlsplit

    import orjson

    user_id, token = login(base)
    params = {"access_token": token, "query_model": 3, "start": start, "end": end}

    def body(page: int) -> bytes:
        doc = {"page_no": page, "page_size": 1000, **params}
        return orjson.dumps({"message_id": str(uuid.uuid4()), "user_id": user_id, "params": doc})

    headers = {"content-type": "application/json"}
    url = urlsplit(base)
    out = []
    with httpx.Client(base_url=base, timeout=60) as client:
        conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=60)

        def with_httpx(page: int) -> int:
            return len(
                client.post("/device/query_record", content=body(page), headers=headers).content
            )

        def with_http_client(page: int) -> int:
            conn.request("POST", "/device/query_record", body=body(page), headers=headers)
            return len(conn.getresponse().read())

        for name, fetch in (("httpx", with_httpx), ("http.client", with_http_client)):
            fetch(1)  # connect before the clock
            t0, c0 = time.perf_counter(), _cpu()
            size = sum(fetch(page) for page in range(1, pages + 1))
            seconds, cpu = time.perf_counter() - t0, _cpu() - c0
            out.append(
                {
                    "client": name,
                    "pages": pages,
                    "kb_per_page": round(size / pages / 1024),
                    "cpu_ms_per_page": round(cpu / pages * 1000, 2),
                    "wall_ms_per_page": round(seconds / pages * 1000, 2),
                }
            )
        conn.close()
    out += _in_flight_cost(base, body, headers, pages, kb=out[0]["kb_per_page"])
    return out


def _in_flight_cost(
    base: str, body: Any, headers: dict[str, str], pages: int, *, kb: int, in_flight: int = 32
) -> list[dict[str, Any]]:
    """The same pages with ``in_flight`` at once, each answer's JSON decoded as a read
    decodes it: in a pool of threads, each request through the transport's handle_request
    (what opslib does) and through httpx.Client, against httpx.AsyncClient with as many
    tasks on one event loop."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    import orjson

    limits = httpx.Limits(max_connections=in_flight, max_keepalive_connections=in_flight)
    path = "/device/query_record"

    def threads() -> int:
        with httpx.Client(base_url=base, timeout=60, limits=limits) as client:

            def one(page: int) -> int:
                answer = client.post(path, content=body(page), headers=headers)
                return len(orjson.loads(answer.content)["data"]["events_list"])

            with ThreadPoolExecutor(in_flight) as pool:
                return sum(pool.map(one, range(1, pages + 1)))

    def transport() -> int:
        timeouts = {"timeout": httpx.Timeout(60).as_dict()}
        with httpx.HTTPTransport(limits=limits) as sender:

            def one(page: int) -> int:
                request = httpx.Request(
                    "POST", base + path, headers=headers, content=body(page), extensions=timeouts
                )
                answer = sender.handle_request(request)
                answer.read()
                return len(orjson.loads(answer.content)["data"]["events_list"])

            with ThreadPoolExecutor(in_flight) as pool:
                return sum(pool.map(one, range(1, pages + 1)))

    async def tasks() -> int:
        async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
            gate = asyncio.Semaphore(in_flight)

            async def one(page: int) -> int:
                async with gate:
                    answer = await client.post(path, content=body(page), headers=headers)
                return len(orjson.loads(answer.content)["data"]["events_list"])

            return sum(await asyncio.gather(*(one(p) for p in range(1, pages + 1))))

    out = []
    runs: dict[str, list[tuple[float, float]]] = {"transport": [], "threads": [], "tasks": []}
    readers = (
        ("transport", transport),
        ("threads", threads),
        ("tasks", lambda: asyncio.run(tasks())),
    )
    for _ in range(3):  # alternated
        for name, read in readers:
            t0, c0 = time.perf_counter(), _cpu()
            read()
            runs[name].append((time.perf_counter() - t0, _cpu() - c0))
    for name, client_name in (
        ("transport", f"transport.handle_request, {in_flight} threads, JSON decoded"),
        ("threads", f"httpx.Client, {in_flight} threads, JSON decoded"),
        ("tasks", f"httpx.AsyncClient, {in_flight} tasks, JSON decoded"),
    ):
        wall = statistics.median(w for w, _ in runs[name])
        cpu = statistics.median(c for _, c in runs[name])
        out.append(
            {
                "client": client_name,
                "pages": pages,
                "kb_per_page": kb,
                "cpu_ms_per_page": round(cpu / pages * 1000, 2),
                "wall_ms_per_page": round(wall / pages * 1000, 2),
            }
        )
    return out
