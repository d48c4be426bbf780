"""One benchmark case in its own process, so its peak RSS is its own.

    python -m benchmarks.worker CASE BASE_URL '<json options>'

prints one JSON line: {"seconds": ..., "rows": ..., "peak_rss_mb": ..., ...}.
"""

from __future__ import annotations

import json
import resource
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd

from benchmarks._platform import login
from opslib.server import demo


def _envelope(user_id: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"message_id": str(uuid.uuid4()), "user_id": user_id, "params": params}


def events_naive(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """What users write by hand: sequential httpx over page_no, json_normalize at the end."""
    user_id, token = login(base)
    rows: list[dict[str, Any]] = []
    page = 1
    t0 = time.perf_counter()
    with httpx.Client(timeout=120) as client:
        while True:
            params = {
                "access_token": token,
                "query_model": 3,
                "start": opts["start"],
                "end": opts["end"],
                "page_no": page,
                "page_size": 1000,
            }
            r = client.post(f"{base}/device/query_record", json=_envelope(user_id, params))
            batch = r.json()["data"]["events_list"]
            rows.extend(batch)
            if len(batch) < 1000:
                break
            page += 1
    df = pd.json_normalize(rows)
    return {"seconds": time.perf_counter() - t0, "rows": len(df)}


def events_opslib(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """opslib's events.list into the typed frame (login excluded from the time)."""
    import opslib

    client = opslib.connect(
        base,
        client_id=demo.CLIENT_ID,
        client_secret=demo.CLIENT_SECRET,
        area_code=demo.AREA_CODE,
        phone=demo.OPS_PHONE,
        password=demo.OPS_PASSWORD,
    )
    client.products.categories()  # log in before the clock starts
    kwargs = {k: opts[k] for k in ("page_size", "concurrency") if k in opts}
    if opts.get("warm"):
        client.events.list(opts["start"], opts["start"] + 60_000, progress=False)
    t0 = time.perf_counter()
    df = client.events.list(opts["start"], opts["end"], progress=False, **kwargs)
    return {"seconds": time.perf_counter() - t0, "rows": len(df)}


def devices_opslib(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    import opslib

    client = opslib.connect(
        base,
        client_id=demo.CLIENT_ID,
        client_secret=demo.CLIENT_SECRET,
        area_code=demo.AREA_CODE,
        phone=demo.OPS_PHONE,
        password=demo.OPS_PASSWORD,
    )
    client.products.categories()
    t0 = time.perf_counter()
    df = client.devices.list(progress=False)
    return {"seconds": time.perf_counter() - t0, "rows": len(df)}


CASES: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "events_naive": events_naive,
    "events_opslib": events_opslib,
    "devices_opslib": devices_opslib,
}


def main() -> None:
    case, base, raw = sys.argv[1], sys.argv[2], sys.argv[3]
    result = CASES[case](base, json.loads(raw))
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


if __name__ == "__main__":
    main()
