"""Store fixtures: a connection to the world's real SQLite file (tests/server/factories)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from opslib.server import store

from ..factories import World


@pytest.fixture
def conn(world: World) -> Iterator[sqlite3.Connection]:
    c = store.connect(world.db)
    yield c
    c.close()
