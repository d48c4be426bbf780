"""Service fixtures: a Context over the world's real SQLite file, on the fake clock.

``ctx("alice")`` is one request's view as the world's account ``alice`` (``ctx()``: no
caller, as before login). The connection is in autocommit: each service call's writes
are there for the next call, as after the route's transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from opslib.server import FakeClock, Settings
from opslib.server.context import Caller, Context
from opslib.server.database import Database
from opslib.server.sms import OutboxGateway, outbox_path

from ..factories import World

MakeContext = Callable[..., Context]


@pytest.fixture
def database(world: World) -> Iterator[Database]:
    db = Database(world.db)
    yield db
    db.close()


@pytest.fixture
def ctx(world: World, database: Database, clock: FakeClock, settings: Settings) -> MakeContext:
    def make(name: str | None = None) -> Context:
        caller = None
        if name is not None:
            account = world[name]
            caller = Caller(user_id=account.user_id, role=account.role, client_id=world.client_id)
        return Context(
            db=database,
            conn=database.conn(),
            now=clock.now_ms(),
            settings=settings,
            sms=OutboxGateway(outbox_path(world.db)),
            message_id=str(uuid.uuid4()),
            caller=caller,
        )

    return make
