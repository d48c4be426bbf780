"""Test helpers: an envelope-speaking TestClient and a database dump."""

from __future__ import annotations

import uuid
import warnings
from pathlib import Path
from typing import Any

import httpx
import orjson

with warnings.catch_warnings():  # starlette prefers httpx2; httpx is what is installed
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from opslib.server import FakeClock, security
from opslib.server.store import connect
from opslib.server.store import tokens as tokens_store

from .factories import World


class Api:
    """A TestClient with envelope helpers."""

    def __init__(self, client: TestClient, world: World, clock: FakeClock) -> None:
        self.client = client
        self.world = world
        self.clock = clock

    def post(
        self,
        path: str,
        params: dict[str, Any] | None = None,
        *,
        token: str | None = None,
        user_id: str = "",
        message_id: str | None = None,
    ) -> httpx.Response:
        """POST an envelope; ``token`` goes into params.access_token."""
        body_params = dict(params or {})
        if token is not None:
            body_params.setdefault("access_token", token)
        body = {
            "message_id": message_id or str(uuid.uuid4()),
            "user_id": user_id,
            "params": body_params,
        }
        return self.client.post(path, json=body)

    def as_user(
        self, name: str, path: str, params: dict[str, Any] | None = None, **kw: Any
    ) -> httpx.Response:
        """POST as the world's account ``name`` (a token issued straight into the store)."""
        account = self.world[name]
        return self.post(path, params, token=self.token(name), user_id=account.user_id, **kw)

    def token(self, name: str) -> str:
        """An access token for account ``name``, issued directly (no argon2 login)."""
        cache = self.__dict__.setdefault("_tokens", {})
        if name not in cache:
            token = security.new_token()
            conn = connect(self.world.db)
            try:
                tokens_store.insert_token(
                    conn,
                    token_hash=security.sha256_hex(token),
                    kind="access",
                    user_id=self.world[name].user_id,
                    client_id=self.world.client_id,
                    family_id=f"test-{name}",
                    now=self.clock.now_ms(),
                    expires_at=self.clock.now_ms() + 7200_000,
                )
            finally:
                conn.close()
            cache[name] = token
        return str(cache[name])

    def sms(self, phone: str | None = None) -> list[dict[str, Any]]:
        """Messages of the SMS outbox, oldest first."""
        path = Path(f"{self.world.db}.sms.jsonl")
        if not path.exists():
            return []
        messages = [orjson.loads(line) for line in path.read_bytes().splitlines() if line]
        return [m for m in messages if phone is None or m["phone"] == phone]

    def last_code(self, phone: str) -> str:
        messages = self.sms(phone)
        assert messages, f"no SMS sent to {phone}"
        return str(messages[-1]["code"])

    def token_access(self, **params: str) -> httpx.Response:
        return self.client.post("/token/access", params=params)

    def login(self, phone: str, password: str) -> dict[str, Any]:
        """Log in by password and exchange the code: the flat token answer + user_id."""
        r = self.post(
            "/user/login",
            {
                "client_id": self.world.client_id,
                "login_model": 1,
                "area_code": self.world.area_code,
                "phone": phone,
                "password": password,
            },
        )
        assert r.status_code == 200, r.text
        code = r.json()["data"]["code"]
        t = self.exchange(code)
        assert t.status_code == 200, t.text
        return dict(t.json())

    def exchange(self, code: str) -> httpx.Response:
        return self.token_access(
            grant_type="authorization_code",
            client_id=self.world.client_id,
            client_secret=self.world.client_secret,
            code=code,
            redirect_uri="none",
        )

    def refresh(self, refresh_token: str) -> httpx.Response:
        return self.token_access(
            grant_type="refresh_token",
            client_id=self.world.client_id,
            client_secret=self.world.client_secret,
            refresh_token=refresh_token,
        )


def dump(db: Path) -> list[str]:
    """Every row of the database as SQL text (to assert nothing changed)."""
    conn = connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()
