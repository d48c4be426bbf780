"""The benchmark platform: a seeded database served by `opslib server` on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from opslib.server import demo

DATA = Path(__file__).parent / "data"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_db(scale: str, until: str) -> Path:
    """Seed ``benchmarks/data/<scale>.db`` once (deterministic for ``until``) and reuse it."""
    DATA.mkdir(parents=True, exist_ok=True)
    from opslib.server.store import SCHEMA_VERSION  # a new schema seeds a new file

    db = DATA / f"{scale}-{until.replace(':', '')}-v{SCHEMA_VERSION}.db"
    if not db.exists():
        tmp = db.with_suffix(".partial.db")
        for p in DATA.glob(tmp.name + "*"):
            p.unlink()
        cmd = [sys.executable, "-m", "opslib.cli", "seed", "--db", str(tmp), "--scale", scale]
        subprocess.run([*cmd, "--until", until], check=True)
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(tmp) + suffix)
            if src.exists():
                src.rename(Path(str(db) + suffix))
    return db


@dataclass
class Platform:
    base_url: str
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start(
    db: Path, *, rate_limit: bool = False, dialect: str = "opslib", server: str = "uvicorn"
) -> Platform:
    """Start one uvicorn worker (httptools + uvloop) over ``db`` and wait until it answers;
    ``rate_limit``: with the platform's default per-token rate limit, else none;
    ``dialect``: the one its HTTP edge speaks (``opslib server --dialect``);
    ``server="hypercorn"``: one hypercorn worker (uvloop) instead, which speaks HTTP/2 as
    well as HTTP/1.1."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if server == "hypercorn":
        cmd = [sys.executable, "-m", "hypercorn", "benchmarks.h2_app:app"]
        cmd += ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--worker-class", "uvloop"]
        env["OPSLIB_BENCH_DB"] = str(db)
        env["OPSLIB_BENCH_DIALECT"] = "" if dialect == "opslib" else dialect
        if not rate_limit:
            env["OPSLIB_BENCH_RATE_LIMIT"] = "0"
    else:
        cmd = [sys.executable, "-m", "opslib.cli", "server", "--db", str(db), "--port", str(port)]
        cmd += ["--dialect", dialect]
        if not rate_limit:  # the loopback benchmarks measure capacity, not the throttle
            cmd += ["--rate-limit", "0"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.post(f"{base}/product/query_category", json={}, timeout=1)
            return Platform(base, proc)
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("benchmark platform did not start within 60 s")


def login(base_url: str, client: httpx.Client | None = None) -> tuple[str, str]:
    """Log in as the demo ops account with plain httpx; return (user_id, access_token)."""
    import uuid

    c = client or httpx.Client(timeout=30)
    r = c.post(
        f"{base_url}/user/login",
        json={
            "message_id": str(uuid.uuid4()),
            "user_id": "",
            "params": {
                "client_id": demo.CLIENT_ID,
                "login_model": 1,
                "area_code": demo.AREA_CODE,
                "phone": demo.OPS_PHONE,
                "password": demo.OPS_PASSWORD,
            },
        },
    ).json()
    code, user_id = r["data"]["code"], r["data"]["user_id"]
    t = c.post(
        f"{base_url}/token/access",
        params={
            "grant_type": "authorization_code",
            "client_id": demo.CLIENT_ID,
            "client_secret": demo.CLIENT_SECRET,
            "code": code,
            "redirect_uri": "none",
        },
    ).json()
    return user_id, t["access_token"]
