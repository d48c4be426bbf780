"""The platform's ASGI app for hypercorn (HTTP/1.1 and HTTP/2): ``hypercorn
benchmarks.h2_app:app`` with ``OPSLIB_BENCH_DB`` naming the database.

uvicorn, which ``opslib server`` runs, speaks no HTTP/2; hypercorn serves the same app
with it (over cleartext, by prior knowledge), so that httpx's HTTP/2 can be measured
against HTTP/1.1 on the same server.
"""

from __future__ import annotations

import os
from pathlib import Path

from opslib.server.app import create_app
from opslib.server.runner import _settings

_RATE = os.environ.get("OPSLIB_BENCH_RATE_LIMIT")  # unset: the platform's default limit
app = create_app(
    Path(os.environ["OPSLIB_BENCH_DB"]),
    settings=_settings(float(_RATE) if _RATE is not None else None),
    dialect=os.environ.get("OPSLIB_BENCH_DIALECT") or None,
)
