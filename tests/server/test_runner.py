"""A real uvicorn server on a loopback port, spoken to over HTTP."""

from __future__ import annotations

import re
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from opslib.server import Settings
from opslib.server.runner import serve, start_in_thread

from .factories import build_world


def test_start_in_thread_serves_http(tmp_path: Path) -> None:
    import time

    world = build_world(tmp_path / "live.db", now=int(time.time() * 1000), events_per_device=5)
    base_url, stop = start_in_thread(world.db, settings=replace(Settings(), access_token_ttl_s=60))
    try:
        with httpx.Client(base_url=base_url, timeout=10) as client:
            alice = world["alice"]
            r = client.post(
                "/user/login",
                json={
                    "message_id": str(uuid.uuid4()),
                    "user_id": "",
                    "params": {
                        "client_id": world.client_id,
                        "login_model": 1,
                        "area_code": "1",
                        "phone": alice.phone,
                        "password": alice.password,
                    },
                },
            )
            assert r.status_code == 200, r.text
            t = client.post(
                "/token/access",
                params={
                    "grant_type": "authorization_code",
                    "client_id": world.client_id,
                    "client_secret": world.client_secret,
                    "code": r.json()["data"]["code"],
                    "redirect_uri": "none",
                },
            )
            assert t.json()["expires_in"] == 60
            r = client.post(
                "/device/query_by_user",
                json={
                    "message_id": str(uuid.uuid4()),
                    "user_id": alice.user_id,
                    "params": {"access_token": t.json()["access_token"]},
                },
            )
            assert r.status_code == 200
            assert r.headers["content-type"] == "application/json"
            assert r.json()["data"]["total"] == 2
            r = client.post(
                "/device/query_by_user",
                content=b"x" * (2 * 1024 * 1024),
                headers={"Content-Type": "application/json"},
            )
            assert r.status_code == 413
    finally:
        stop()
    try:
        httpx.post(f"{base_url}/user/login", json={}, timeout=1)
        raise AssertionError("the server still answers after stop()")
    except httpx.TransportError:
        pass


# -- opslib server: what it refuses before it starts, and where it listens ----------------


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"port": 99999}, "--port 99999: not a port; accepted: 0 to 65535 (0: a free one)"),
        ({"port": -5}, "--port -5: not a port; accepted: 0 to 65535"),
        ({"rate_limit": -1.0}, "--rate-limit -1.0: not a rate; accepted: requests per second"),
        ({"rate_limit": float("nan")}, "--rate-limit nan: not a rate"),
        # Before: opslib's own document served beside chint's wire, a contract it breaks
        ({"dialect": "chint", "docs": True}, "--docs: the OpenAPI document describes opslib's"),
    ],
)
def test_serve_refuses_a_bad_argument_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kwargs: dict[str, Any], said: str
) -> None:
    db = tmp_path / "new" / "platform.db"
    assert serve(db, seed="demo", **kwargs) == 2
    out, err = capsys.readouterr()
    assert said in err
    assert err.rstrip().endswith("nothing was started")
    assert out == ""
    assert not db.parent.exists()


def test_serve_refuses_a_directory_and_a_file_that_is_not_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert serve(tmp_path, port=0) == 2
    assert f"--db '{tmp_path}': a directory, not a database file" in capsys.readouterr().err
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    assert serve(text, port=0, seed="demo") == 2
    assert f"--db '{text}': cannot open it: file is not a database" in capsys.readouterr().err
    assert text.read_text() == "not a database\n"


def test_serve_on_a_port_in_use_says_so_before_touching_the_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = tmp_path / "platform.db"
        assert serve(db, port=port, seed="demo") == 2
    out, err = capsys.readouterr()
    assert f"cannot listen on 127.0.0.1 port {port}: Address already in use" in err
    assert "choose another --port or --host; nothing was started" in err
    assert "opslib platform on" not in out
    assert not db.exists()


def test_opslib_server_on_port_0_names_the_port_it_listens_on(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "opslib.cli",
            "server",
            "--db",
            str(tmp_path / "p.db"),
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        url = first.split()[3]
        assert re.fullmatch(r"http://127\.0\.0\.1:[1-9][0-9]*", url), first
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.post(f"{url}/product/query_category", json={}, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "nothing answers on the port it named"
                time.sleep(0.1)
        assert answer.status_code in (200, 400, 401), answer.text
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serving_beyond_loopback_with_the_published_admin_password_is_warned(
    seeded_db: Path, tmp_path: Path
) -> None:
    from opslib.server.runner import _demo_admin_open, _loopback
    from opslib.server.security import hash_password

    assert [_loopback(h) for h in ("127.0.0.1", "::1", "[::1]", "localhost")] == [True] * 4
    assert [_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.5", "ops.example.com")] == [False] * 4
    # The seed's admin account keeps the password the README publishes: it was served on
    # 0.0.0.0 without a word.
    assert _demo_admin_open(seeded_db)
    changed = tmp_path / "changed.db"
    changed.write_bytes(seeded_db.read_bytes())
    with sqlite3.connect(changed) as con:
        con.execute("UPDATE users SET password_hash = ?", (hash_password("a-new-password-1"),))
    assert not _demo_admin_open(changed)
    assert not _demo_admin_open(tmp_path / "missing.db")
