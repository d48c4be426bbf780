"""Server fixtures: a real SQLite file with a known world, the app in-process, a FakeClock.

``api`` wraps Starlette's TestClient (the same ASGI app, no sockets) with helpers that
build envelopes, log in and read SMS codes from the outbox file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from opslib.server import FakeClock, Settings, create_app

from .factories import World, build_world
from .helpers import Api, TestClient

START_MS = 1_714_521_600_000  # 2024-05-01 00:00:00 UTC


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START_MS)


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def world(tmp_path: Path, clock: FakeClock) -> World:
    return build_world(tmp_path / "platform.db", now=clock.now_ms(), events_per_device=50)


@pytest.fixture
def api(world: World, clock: FakeClock, settings: Settings) -> Iterator[Api]:
    app = create_app(world.db, settings=settings, clock=clock)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Api(client, world, clock)
