"""Client fixtures: fake clocks for the platform and the client, so that tests move time
forward instead of waiting for it."""

from __future__ import annotations

import functools

import pytest

from client.clocks import Clocks
from opslib.server import app, runner


@pytest.fixture
def clocks(monkeypatch: pytest.MonkeyPatch) -> Clocks:
    """Platforms started by ``platform_factory`` in this test run on ``clocks.platform``."""
    made = Clocks()
    on_fake_time = functools.partial(app.create_app, clock=made.platform)
    monkeypatch.setattr(runner, "create_app", on_fake_time)
    return made
