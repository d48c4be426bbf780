"""Security tests reuse the server fixtures: the app in-process over a known world, a FakeClock.

``api``, ``world``, ``clock`` and ``settings`` are those of ``tests/server/conftest.py``;
``platform``/``fresh_platform`` (a real server on loopback) come from ``tests/conftest.py``.
"""

from __future__ import annotations

from server.conftest import api, clock, settings, world

__all__ = ["api", "clock", "settings", "world"]
