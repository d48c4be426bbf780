"""Raw wire helpers for reliability tests: logins, envelopes and a platform subprocess.

Reliability tests talk to real servers over loopback with plain httpx (no client retries in
the way), so what they count is exactly what the platform acknowledged.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from opslib.server import demo


def envelope(
    user_id: str, token: str, params: dict[str, Any], message_id: str = ""
) -> dict[str, Any]:
    return {
        "message_id": message_id or str(uuid.uuid4()),
        "user_id": user_id,
        "params": {**params, "access_token": token},
    }


def login(http: httpx.Client, phone: str, password: str) -> tuple[str, str]:
    """Log in by password and exchange the code: (user_id, access_token)."""
    r = http.post(
        "/user/login",
        json={
            "message_id": str(uuid.uuid4()),
            "user_id": "",
            "params": {
                "client_id": demo.CLIENT_ID,
                "login_model": 1,
                "area_code": demo.AREA_CODE,
                "phone": phone,
                "password": password,
            },
        },
    )
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    t = http.post(
        "/token/access",
        data={
            "grant_type": "authorization_code",
            "client_id": demo.CLIENT_ID,
            "client_secret": demo.CLIENT_SECRET,
            "code": data["code"],
            "redirect_uri": "none",
        },
    )
    assert t.status_code == 200, t.text
    return str(data["user_id"]), str(t.json()["access_token"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``opslib server`` in a subprocess on a fixed loopback port; its output goes to a log."""

    def __init__(
        self, db: Path, log: Path, *, rate_limit: float | None = None, dialect: str | None = None
    ) -> None:
        self.db = db
        self.log = log
        self.dialect = dialect
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.rate_limit = rate_limit
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, timeout: float = 60.0) -> None:
        args = [sys.executable, "-m", "opslib.cli", "server", "--db", str(self.db)]
        args += ["--port", str(self.port)]
        if self.rate_limit is not None:
            args += ["--rate-limit", str(self.rate_limit)]
        if self.dialect is not None:
            args += ["--dialect", self.dialect]
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPSLIB_")}
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env)
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}: {self.tail()}")
            with contextlib.suppress(httpx.HTTPError):
                r = httpx.post(f"{self.base_url}/user/none", timeout=1.0, trust_env=False)
                if r.status_code == 404 or self.dialect is not None:  # any answer is up
                    return
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the server did not start within {timeout} s: {self.tail()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no checkpoint, no flush."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        """SIGTERM and wait (SIGKILL after 20 s)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def tail(self, n: int = 2000) -> str:
        return self.log.read_text(errors="replace")[-n:] if self.log.exists() else ""
