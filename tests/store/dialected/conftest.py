"""The store's equality tests run against the platform in every dialect it speaks: the
fixtures of tests/client/resources (``opslib``, ``vendor``, ``chint``)."""

from client.resources.conftest import (  # noqa: F401 - fixtures, found by name
    platform,
    platform_dialect,
    seeded_db,
    session_dialect,
)
