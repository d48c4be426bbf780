"""A real uvicorn server on a loopback port, spoken to over HTTP."""

from __future__ import annotations

import uuid
from dataclasses import replace
from pathlib import Path

import httpx

from opslib.server import Settings
from opslib.server.runner import start_in_thread

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
