"""The fleet reports against ``opslib server --dialect chint``.

That platform has no fleet query and no online/offline events: the reports read the
fleet per user (``users``), say in words what they cannot compute (the outcome lists the
sections), and never show a secret the platform sends.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import ServedPlatform, _copy_db, _demo_fields

from opslib.dialects import Dialect
from opslib.reports import ParameterError, run_report
from opslib.server.runner import start_in_thread
from opslib.server.seed.dialect import fold_onto_dialect

from .runs import platform_env

if TYPE_CHECKING:
    from opslib.reports.status import RunResult


@pytest.fixture(scope="module")
def chint(seeded_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedPlatform]:
    db = tmp_path_factory.mktemp("chint-reports") / "chint.db"
    _copy_db(seeded_db, db)
    fold_onto_dialect(db, Dialect.named("chint"))
    url, stop = start_in_thread(db, dialect="chint")
    running = ServedPlatform(base_url=url, db=db, stop=stop, **_demo_fields())
    yield running
    running.stop()


@pytest.fixture(scope="module")
def users_csv(chint: ServedPlatform) -> Path:
    client = chint.connect(dialect="chint")
    owners = [client.user_id, chint.connect("user", dialect="chint").user_id]
    path = Path(chint.db).parent / "users.csv"
    path.write_text("user_id\n" + "\n".join(str(o) for o in owners) + "\n")
    return path


def _run(chint: ServedPlatform, report: str, params: dict[str, Any], out: Path) -> RunResult:
    env = {**platform_env(chint), "OPSLIB_DIALECT": "chint"}
    return run_report(report, params, out_dir=out, env=env)


def test_event_analysis_says_what_it_cannot_compute(
    chint: ServedPlatform, users_csv: Path, tmp_path: Path
) -> None:
    result = _run(chint, "event_analysis", {"start": "-30d", "users": [str(users_csv)]}, tmp_path)
    assert result.outcome == "partial", result.summary()
    assert "In section 'Downtime': not computable on this platform" in result.reason
    assert "no online/offline events" in result.reason
    html = Path(result.html).read_text()
    assert "This platform reports no online/offline events" in html
    assert '"name":"fault and system report"' in html  # its own labels in the charts
    assert '"name":"online"' not in html  # never ours (code 1 is online here)
    assert "withheld-by-the-reference-platform" not in html  # the secret it sends
    assert "device_secret" not in html


@pytest.mark.parametrize("report", ["fleet_inventory", "event_analysis"])
def test_a_fleet_report_without_users_is_refused_naming_users(
    chint: ServedPlatform, report: str, tmp_path: Path
) -> None:
    with pytest.raises(ParameterError, match=r"no whole-fleet read; give one of .*users"):
        _run(chint, report, {}, tmp_path)
    assert not any(tmp_path.iterdir())  # nothing written, no kernel started


def test_fleet_inventory_per_user(chint: ServedPlatform, users_csv: Path, tmp_path: Path) -> None:
    result = _run(chint, "fleet_inventory", {"users": [str(users_csv)]}, tmp_path)
    assert result.outcome == "ok", result.summary()
    html = Path(result.html).read_text()
    assert "Users of users.csv, all categories" in html  # the first screen's sentence
    assert "Whole fleet" not in html
    assert "this platform has no fault status" in html  # not "0 faulty"
    assert "withheld-by-the-reference-platform" not in html
    csv = next(Path(e) for e in result.exports if e.endswith(".csv"))
    text = csv.read_text()
    assert len(text.splitlines()) > 1  # the users' devices
    assert "secret" not in text.splitlines()[0]
    assert "withheld-by-the-reference-platform" not in text


def test_event_analysis_of_one_device(chint: ServedPlatform, tmp_path: Path) -> None:
    """A device is read by its id: no fleet listing, which this platform has not got."""
    user = chint.connect("user", dialect="chint")
    device = str(user.devices.list(user.user_id)["device_id"].iloc[0])
    result = _run(chint, "event_analysis", {"device_id": device, "start": "-3d"}, tmp_path)
    assert result.outcome == "partial", result.summary()  # downtime alone not computable
    assert "In section 'Downtime': not computable" in result.reason


@pytest.mark.parametrize("report", ["user_lookup", "product_upkeep"])
def test_the_other_reports_run_clean(chint: ServedPlatform, report: str, tmp_path: Path) -> None:
    from .runs import parameters

    result = _run(chint, report, parameters(report, "unattended"), tmp_path)
    assert result.outcome == "ok", result.summary()
    html = Path(result.html).read_text()
    assert "withheld-by-the-reference-platform" not in html


def test_a_profile_naming_only_the_dialect_runs_the_report(
    chint: ServedPlatform, users_csv: Path, tmp_path: Path
) -> None:
    """No option but the profile's ``dialect = "chint"`` (no
    OPSLIB_DIALECT): the report logs in, reads per user and says what it cannot compute."""
    creds = chint.credentials("ops")
    config = tmp_path / "config.toml"
    lines = ["[profiles.cloud]", f'base_url = "{chint.base_url}"', 'dialect = "chint"']
    lines += [f'{key} = "{value}"' for key, value in creds.items()]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config.chmod(0o600)
    env = {"OPSLIB_CONFIG": str(config), "OPSLIB_TOKEN_CACHE": ""}
    params = {"start": "-30d", "users": [str(users_csv)]}
    result = run_report(
        "event_analysis", params, out_dir=tmp_path / "out", profile="cloud", env=env
    )
    assert result.outcome == "partial", result.summary()
    assert "In section 'Downtime': not computable on this platform" in result.reason
    html = Path(result.html).read_text()
    assert "This platform reports no online/offline events" in html
    assert "withheld-by-the-reference-platform" not in html
    assert creds["password"] not in html
