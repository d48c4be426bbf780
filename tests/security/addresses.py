"""Requests from a chosen client address: in-process (the ASGI scope's client) and over
loopback (an httpx transport bound to a 127.0.0.0/8 source address)."""

from __future__ import annotations

from typing import Any

import httpx
from server.helpers import Api, TestClient


def from_address(api: Api, address: str) -> Api:
    """The same app and world, its requests coming from ``address``."""
    client = TestClient(api.client.app, raise_server_exceptions=False, client=(address, 50000))
    return Api(client, api.world, api.clock)


def http_from(base_url: str, address: str, **kwargs: Any) -> httpx.Client:
    """An httpx client to ``base_url`` whose connections leave from ``address``."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(
        base_url=base_url, transport=transport, trust_env=False, timeout=30, **kwargs
    )
