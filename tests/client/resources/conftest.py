"""The client's resource tests run against the platform in every dialect it speaks.

``platform`` (session) and ``platform_factory`` here serve the same seeded database in the
reference dialect and in ``vendor`` (``opslib server --dialect vendor``: failures in the
body, ISO times at +08:00, start/end in seconds, pages capped at 100, total in pages, ...);
``platform.connect()`` gives a client of the same dialect. A test asserting the same data
under both proves the client reads a platform that decides the spec's open points
differently exactly as it reads ours.

Under ``chint`` (``opslib server --dialect chint``, the CHINT smart cloud) the seeded
database is first folded onto what that platform reports (``fold_onto_dialect``, once a
session): its event kinds, node and encryption types and product statuses. That platform
has no whole-fleet read, so the tests read per user there and assert the
``opslib.Unsupported`` a fleet read raises.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ServedPlatform, _copy_db, _start

DIALECTS = ("opslib", "vendor", "chint")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``@pytest.mark.dialects(when)``: the test is made only for the dialects whose
    :class:`~opslib.dialects.Dialect` ``when`` holds for (a case that cannot happen under
    a dialect is not run there, rather than skipped)."""
    from opslib.dialects import Dialect

    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("dialects")
        name = getattr(getattr(item, "callspec", None), "params", {}).get("session_dialect")
        if marker is None or name is None:
            kept.append(item)
            continue
        spoken = Dialect() if name == "opslib" else Dialect.named(name)
        (kept if marker.args[0](spoken) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(scope="session", params=DIALECTS)
def session_dialect(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def seeded_db(
    seeded_db: Path, tmp_path_factory: pytest.TempPathFactory, session_dialect: str
) -> Path:
    """The seeded database, folded onto the chint platform's data under ``chint`` (once)."""
    if session_dialect != "chint":
        return seeded_db
    from opslib.dialects import Dialect
    from opslib.server.seed.dialect import fold_onto_dialect

    db = tmp_path_factory.mktemp("seeded-chint") / "seeded.db"
    _copy_db(seeded_db, db)
    fold_onto_dialect(db, Dialect.named("chint"))
    return db


@pytest.fixture(scope="session")
def platform(
    seeded_db: Path, tmp_path_factory: pytest.TempPathFactory, session_dialect: str
) -> Iterator[ServedPlatform]:
    """The shared platform of this dialect (session scope) over a copy of the seeded db."""
    db = tmp_path_factory.mktemp(f"platform-{session_dialect}") / "platform.db"
    _copy_db(seeded_db, db)
    running = _start(db, dialect=None if session_dialect == "opslib" else session_dialect)
    yield running
    running.stop()


@pytest.fixture
def platform_dialect(session_dialect: str) -> str | None:
    return None if session_dialect == "opslib" else session_dialect
