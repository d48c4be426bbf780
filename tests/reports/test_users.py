"""A fleet report's ``users`` parameter: user ids or CSV files of them,
read into per-user fleet reads on a platform without a fleet query."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import opslib
from opslib import analysis
from opslib.dialects import Dialect
from opslib.reports import ParameterError
from opslib.reports import notebook as nb
from opslib.reports.checks import ReportChecks, check_values
from opslib.reports.params import ReportParameter

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def test_read_users_from_ids_and_csv_files(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("user_id,name\nu1,Ann\nu2,Bo\n\nu1,Ann\n")
    (tmp_path / "b.csv").write_text("id\nu3\n")
    got = nb.read_users([str(tmp_path / "a.csv"), "u4", str(tmp_path / "b.csv"), "u2"])
    assert got == ["u1", "u2", "u4", "u3"]
    assert nb.read_users(str(tmp_path / "b.csv")) == ["u3"]
    (tmp_path / "empty.csv").write_text("user_id\n")
    with pytest.raises(ValueError, match="no user ids"):
        nb.read_users([str(tmp_path / "empty.csv")])


def test_the_users_parameter_is_checked_before_a_run(tmp_path: Path) -> None:
    checks = ReportChecks(kinds={"users": "users"})
    declared = {"users": ReportParameter("users", "list[str]", [], "")}
    (tmp_path / "fleet.csv").write_text("user_id\nu1\n")
    got = check_values(checks, declared, {"users": ["fleet.csv", "u9"]}, base=tmp_path)
    assert got["users"] == [str(tmp_path / "fleet.csv"), "u9"]
    with pytest.raises(ParameterError, match="'users'"):
        check_values(checks, declared, {"users": ["missing.csv"]}, base=tmp_path)
    # A name with a comma, unquoted: pandas made user_id the index and read the names as
    # the user ids, with no error.
    (tmp_path / "named.csv").write_text("user_id,name\nu1,Lovelace, Ada\nu2,Bo\n")
    with pytest.raises(ParameterError) as info:
        check_values(checks, declared, {"users": ["named.csv"]}, base=tmp_path)
    assert str(info.value).startswith(
        f"parameter 'users' = 'named.csv': {tmp_path / 'named.csv'}: line 2 has 3 fields where "
        "the header has 2 (a comma in a cell needs the cell in double quotes); accepted: "
    )


def test_fleet_loads_per_user_on_a_platform_without_a_fleet_query(
    platform: ServedPlatform, tmp_path: Path
) -> None:
    client = platform.connect()
    owners = client.devices.list()["user_id"].dropna().drop_duplicates().head(3).tolist()
    client._session.dialect = Dialect().replace(capabilities={"fleet_events": False})
    window = analysis.resolve_window("-30d")
    with pytest.raises(opslib.Unsupported):
        nb.load_events(client, window)
    (tmp_path / "users.csv").write_text("user_id\n" + "\n".join(owners) + "\n")
    events = nb.load_events(client, window, users=[str(tmp_path / "users.csv")])
    assert set(events["user_id"].dropna()) <= set(owners)
    assert events.attrs["totals"].keys() == set(owners)
    devices = nb.load_devices(client, users=owners)
    assert set(devices["device_id"]) >= set(events["device_id"].dropna())


def test_event_frames_carry_their_platforms_kinds(platform: ServedPlatform) -> None:
    client = platform.connect()
    events = client.events.list("-7d", limit=5)
    assert analysis.event_kinds(events) == analysis.REFERENCE_KINDS
    client._session.dialect = Dialect.named("chint").replace(
        capabilities={"fleet_events": True}, selectors=Dialect().selectors
    )
    theirs = client.events.list("-7d", limit=5)
    assert analysis.event_kinds(theirs).codes("fault") == [1, 2]
    assert not analysis.event_kinds(theirs).has_outages


def test_event_pages_carry_their_platforms_kinds(platform: ServedPlatform) -> None:
    client = platform.connect()
    page = next(iter(client.events.iter_pages("-7d", page_size=5, limit=5)))
    assert analysis.event_kinds(page) == analysis.REFERENCE_KINDS
    assert page.attrs["event_kinds"]["kinds"][4] == "fault"
