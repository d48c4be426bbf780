"""Parameter values checked by what they mean, before a kernel starts; ``-p`` on the command line.

No kernel runs here except where the command line is shown to reach a run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from opslib.cli import join_parameters
from opslib.reports import ParameterError, find_notebook
from opslib.reports.checks import (
    CheckedParameters,
    ReportChecks,
    RoleRefused,
    check_parameters,
    check_role,
    check_values,
    read_checks,
)
from opslib.reports.params import ReportParameter
from opslib.reports.platform import Platform

from .test_runner import opslib_cli

WINDOW = {"start": "-7d", "end": "now"}


def declared(**defaults: Any) -> dict[str, ReportParameter]:
    kinds = {bool: "bool", int: "int", float: "float", list: "list[str]"}
    return {
        name: ReportParameter(name, kinds.get(type(value), "str"), value, "")
        for name, value in defaults.items()
    }


def refused(checks: ReportChecks, values: dict[str, Any], **defaults: Any) -> str:
    with pytest.raises(ParameterError) as info:
        check_values(checks, declared(**defaults), values)
    message = str(info.value)
    assert "\n" not in message  # one line
    return message


# --- kinds -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["-1d", "-36h", "now", "2026-02-28", "2026-02-28T06:00:00Z"])
def test_times_in_every_documented_form_pass(value: str) -> None:
    checks = ReportChecks(kinds={"start": "time"})
    assert check_values(checks, declared(start="-7d"), {"start": value}) == {"start": value}


def test_a_date_that_is_not_on_the_calendar_is_refused() -> None:
    message = refused(ReportChecks(kinds={"start": "time"}), {"start": "2026-02-30"}, start="")
    assert message.startswith(
        "parameter 'start' = '2026-02-30': not a calendar date (day is out of range for month); "
        "accepted: an ISO 8601 time"
    )
    assert "'-7d'" in message  # the relative form is named


def test_a_time_that_means_nothing_is_refused() -> None:
    message = refused(ReportChecks(kinds={"end": "time"}), {"end": "yesterday"}, end="now")
    assert message.startswith("parameter 'end' = 'yesterday': not a time; accepted:")


def test_the_window_must_run_forward() -> None:
    checks = ReportChecks(kinds={"start": "time", "end": "time"}, window=("start", "end"))
    message = refused(checks, {"start": "-1d", "end": "-2d"}, **WINDOW)
    assert message == (
        "parameters 'start' = '-1d' and 'end' = '-2d': start is not before end; "
        "accepted: a start before the end, both after 1970"
    )
    assert check_values(checks, declared(**WINDOW), {"start": "-2d"}) == {"start": "-2d"}


def test_event_types_are_checked_one_by_one() -> None:
    checks = ReportChecks(kinds={"event_types": "event_types"})
    ok = check_values(checks, declared(event_types=[]), {"event_types": ["alarm", "offline"]})
    assert ok == {"event_types": ["alarm", "offline"]}
    message = refused(checks, {"event_types": ["alarm", "alrm"]}, event_types=[])
    assert message.startswith(
        "parameter 'event_types' = 'alrm': not an event type (did you mean 'alarm'?); "
        "accepted: online, offline, "
        "property report, alarm, command, firmware upgrade"
    )


@pytest.mark.parametrize(
    ("value", "problem"), [("banana", "not a time bucket"), ("0h", "longer than zero")]
)
def test_freq_must_be_a_bucket(value: str, problem: str) -> None:
    message = refused(ReportChecks(kinds={"freq": "freq"}), {"freq": value}, freq="1h")
    assert problem in message
    assert message.endswith("accepted: a pandas frequency such as 15min, 1h, 6h, 1D, 1W")


def test_a_device_status_is_one_of_the_platforms() -> None:
    checks = ReportChecks(kinds={"status": "device_status"})
    for value in ("", "online", "FAULT", "2"):
        assert check_values(checks, declared(status=""), {"status": value})
    message = refused(checks, {"status": "broken"}, status="")
    assert message == (
        "parameter 'status' = 'broken': not a device status; accepted: inactive (0), "
        "online (1), offline (2), fault (3), or empty for all"
    )


def test_a_device_status_is_one_of_the_platforms_dialect() -> None:
    from opslib.dialects import Dialect

    checks = ReportChecks(kinds={"status": "device_status"})
    chint = Dialect.named("chint")
    for value in ("disabled", "Activated", "4"):
        assert check_values(checks, declared(status=""), {"status": value}, dialect=chint)
    with pytest.raises(ParameterError) as caught:
        check_values(checks, declared(status=""), {"status": "fault"}, dialect=chint)
    assert str(caught.value) == (
        "parameter 'status' = 'fault': not a device status on the chint platform; accepted: "
        "inactive (0), online (1), offline (2), disabled (3), activated (4), or empty for all"
    )


def test_cli_checks_a_status_against_the_profiles_dialect(tmp_path: Path) -> None:
    args = ("report", "run", "fleet_inventory", "--out", str(tmp_path / "out"))
    done = opslib_cli(*args, "-p", "status=fault", env_extra={"OPSLIB_DIALECT": "chint"})
    assert done.returncode == 2, done.stderr
    assert "'status' = 'fault': not a device status on the chint platform" in done.stderr
    assert "activated (4)" in done.stderr
    assert not (tmp_path / "out").exists()


def test_numbers_with_a_floor() -> None:
    assert "must be above zero" in refused(
        ReportChecks(kinds={"days": "positive"}), {"days": 0}, days=7
    )
    assert "must not be negative" in refused(
        ReportChecks(kinds={"n": "non_negative"}), {"n": -1}, n=0
    )


def _refusal(report: str, values: dict[str, Any]) -> str:
    """What the checks of ``report`` say to ``values``, before any kernel."""
    with pytest.raises(ParameterError) as info:
        check_parameters(find_notebook(report), values)
    return str(info.value)


def test_a_bucket_that_cuts_the_window_into_too_many_is_refused() -> None:
    notebook = find_notebook("event_analysis")
    # freq 1s over 7 days: 604,800 points a line, an 87 MB page written in three minutes.
    assert _refusal("event_analysis", {"start": "-7d", "freq": "1s"}) == (
        "parameter 'freq' = '1s': 604,800 buckets from start to end; accepted: at most "
        "20,000 buckets: a longer one, such as 1min"
    )
    assert check_parameters(notebook, {"start": "-7d", "freq": "1min"}).values["freq"] == "1min"
    assert check_parameters(notebook, {"start": "-3650d", "freq": "1W"}).values["freq"] == "1W"


def test_a_source_of_events_is_one_the_reports_know() -> None:
    for report in ("event_analysis", "fleet_inventory"):  # 'stor' failed in the kernel
        with pytest.raises(ParameterError, match="'stor': not a source of events; accepted: "):
            check_parameters(find_notebook(report), {"source": "stor"})
        assert check_parameters(find_notebook(report), {"source": "store"}).values


def test_a_phone_is_digits_only() -> None:
    notebook = find_notebook("user_lookup")
    # '555-000-0003' reached the platform and failed the run with a 400.
    assert _refusal("user_lookup", {"area_code": "1", "phone": "555-000-0003"}) == (
        "parameter 'phone' = '555-000-0003': not digits only; accepted: digits only "
        "('5550000003'), no spaces or dashes"
    )
    given = {"area_code": "0086", "phone": " 5550000003"}
    assert check_parameters(notebook, given).values == {"area_code": "0086", "phone": "5550000003"}


def test_two_ways_to_select_the_same_thing_are_refused() -> None:
    # users was dropped without a word when user_id was given too: the report read one user.
    assert _refusal("event_analysis", {"user_id": "u-1", "users": ["u-2", "u-3"]}) == (
        "parameters user_id and users each select what the report reads (user_id='u-1', "
        "users=['u-2', 'u-3']): give one of device_id, user_id, users"
    )
    assert "give one of user_id, users" in _refusal(
        "fleet_inventory", {"user_id": "u-1", "users": ["u-2"]}
    )
    assert "give one of user_id, phone, identity_id" in _refusal(
        "user_lookup", {"user_id": "u-1", "area_code": "1", "phone": "5550000003"}
    )
    assert check_parameters(find_notebook("event_analysis"), {"users": ["u-2"]}).values


def test_days_back_end_at_1970() -> None:
    # user_lookup with days = 100000000 started a kernel that ended in an OverflowError.
    for report, name in (("user_lookup", "days"), ("fleet_inventory", "silent_days")):
        with pytest.raises(ParameterError, match=f"'{name}' = 100000000: reaches back before 1970"):
            check_parameters(find_notebook(report), {name: 100000000})
        assert check_parameters(find_notebook(report), {name: 7000}).values == {name: 7000}


def test_paths_are_resolved_against_the_callers_directory(tmp_path: Path) -> None:
    (tmp_path / "products.csv").write_text("product_id\n")
    checks = ReportChecks(kinds={"source": "input_file", "log": "output_file"})
    given = {"source": "products.csv", "log": "audit.csv"}
    out = check_values(checks, declared(source="", log=""), given, base=tmp_path)
    assert out == {"source": str(tmp_path / "products.csv"), "log": str(tmp_path / "audit.csv")}
    with pytest.raises(ParameterError) as info:
        check_values(checks, declared(source=""), {"source": "nope.csv"}, base=tmp_path)
    assert str(info.value) == (
        f"parameter 'source' = 'nope.csv': no such file ({tmp_path / 'nope.csv'}); "
        f"accepted: a path to an existing file, relative to {tmp_path}"
    )
    with pytest.raises(ParameterError, match=r"its directory .*missing does not exist"):
        check_values(checks, declared(log=""), {"log": "missing/audit.csv"}, base=tmp_path)
    # A kernel used to start and end in pandas' EmptyDataError or UnicodeDecodeError.
    (tmp_path / "empty.csv").write_text("\n")
    (tmp_path / "latin1.csv").write_bytes("product_id,product_name\np-1,Café\n".encode("latin-1"))
    for file, said in [
        ("empty.csv", f"{tmp_path / 'empty.csv'} is empty; accepted: a file that starts"),
        ("latin1.csv", f"{tmp_path / 'latin1.csv'} is not UTF-8 text (byte 0xe9 at offset 31)"),
    ]:
        with pytest.raises(
            ParameterError, match=re.escape(f"parameter 'source' = '{file}': {said}")
        ):
            check_values(checks, declared(source=""), {"source": file}, base=tmp_path)


def test_values_that_go_together() -> None:
    checks = ReportChecks(together=[["area_code", "phone"]])
    message = refused(checks, {"phone": "5550000003"}, area_code="", phone="")
    assert message == (
        "parameters area_code and phone go together (area_code='', phone='5550000003'): "
        "give area_code as well, or none of them"
    )


# --- the notebooks declare theirs -------------------------------------------------------------


def test_the_reports_declare_what_their_parameters_mean() -> None:
    event = read_checks(find_notebook("event_analysis"))
    assert event.kinds == {
        "start": "time", "end": "time", "event_types": "event_types", "freq": "freq",
        "users": "users", "tz": "tz", "device_id": "device", "user_id": "user", "source": "source",
    }  # fmt: skip
    assert event.window == ("start", "end")
    upkeep = read_checks(find_notebook("product_upkeep"))
    assert upkeep.kinds == {
        "products_path": "input_file", "audit_log": "output_file", "users": "users",
    }  # fmt: skip
    assert upkeep.needs_role == {"apply": "admin"}
    assert read_checks(find_notebook("fleet_inventory")).kinds["status"] == "device_status"
    assert read_checks(find_notebook("fleet_inventory")).kinds["users"] == "users"
    assert read_checks(find_notebook("fleet_inventory")).kinds["product_id"] == "product"
    assert read_checks(find_notebook("user_lookup")).together == [["area_code", "phone"]]


def test_check_parameters_of_a_real_report() -> None:
    notebook = find_notebook("event_analysis")
    checked = check_parameters(notebook, {"start": "-1d", "event_types": "alarm,offline"})
    assert checked.values == {"start": "-1d", "event_types": ["alarm", "offline"]}
    with pytest.raises(ParameterError, match="'freq' = 'soon': not a time bucket"):
        check_parameters(notebook, {"freq": "soon"})


def test_apply_needs_an_admin_account() -> None:
    checks = ReportChecks(needs_role={"apply": "admin"})
    checked = CheckedParameters(declared(apply=False), checks, {"apply": True})
    ops = Platform(profile="prod", base_url="https://ops.example.com", nick_name="Ops desk",
                   phone="555*****01", role="ops")  # fmt: skip
    with pytest.raises(RoleRefused) as info:
        check_role(checked, ops)
    assert str(info.value) == (
        "parameter 'apply' = True needs the admin role; the account Ops desk (555*****01), "
        "role ops on profile 'prod' (ops.example.com) has not: use the profile of an admin "
        "account"
    )
    check_role(checked, Platform(role="admin"))  # allowed
    check_role(checked, Platform(role=""))  # the platform does not say: its writes will
    check_role(CheckedParameters(declared(apply=False), checks, {"apply": False}), ops)


# --- the command line --------------------------------------------------------------------


def test_dash_p_takes_values_that_start_with_a_dash_and_name_equals_value() -> None:
    argv = ["report", "run", "x", "-p", "start", "-1d", "--parameter", "end=-1h", "-p", "a", "b=c"]
    assert join_parameters(argv) == [
        "report", "run", "x", "--parameter=start=-1d", "--parameter=end=-1h",
        "--parameter=a=b=c",
    ]  # fmt: skip
    assert join_parameters(["-p", "n", "--out", "o"]) == ["--parameter=n", "--out", "o"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-p", "start", "2026-02-30"], "'start' = '2026-02-30': not a calendar date"),
        (["-p", "start=-1d", "-p", "end", "-2d"], "start is not before end"),
        (["-p", "event_types", "alarm,alrm"], "'event_types' = 'alrm': not an event type"),
        (["-p", "freq", "banana"], "'freq' = 'banana': not a time bucket"),
        (["-p", "source", "missing.csv"], "'source' = 'missing.csv': no such file"),
        (["-p", "days", "0"], "'days' = 0: must be above zero"),
        (["--profile", "nope"], "profile 'nope' was asked for, but there is no config file"),
    ],
)
def test_cli_refuses_before_any_kernel_with_one_line(
    tiny: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    done = opslib_cli("report", "run", "window", *args, "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert message in lines[0]
    assert lines[0].startswith("opslib report run: ")
    assert lines[0].endswith("; nothing was run")
    assert not (tmp_path / "out").exists()  # no run directory left


def test_cli_runs_with_a_relative_time_and_a_path_from_the_callers_directory(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    here = tmp_path / "caller"
    here.mkdir()
    (here / "input.txt").write_text("read from the caller's directory")
    command = [
        sys.executable, "-m", "opslib.cli", "report", "run", "window", "-p", "start", "-1d",
        "-p", "end=-1h", "-p", "source", "input.txt", "--out", "out",
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=here, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    status = json.loads(next((here / "out" / "window").glob("*/status.json")).read_text())
    assert status["parameters"]["start"] == "-1d"
    assert status["parameters"]["end"] == "-1h"
    assert status["parameters"]["source"] == str(here / "input.txt")
    notebook = Path(status["output_notebook"]).read_text()
    assert "start: -1d end: -1h" in notebook
    assert "source text: read from the caller" in notebook


def test_a_fleet_read_is_refused_where_the_platform_reads_users_one_at_a_time() -> None:
    from opslib.dialects import Dialect

    chint = Dialect.named("chint")
    notebook = find_notebook("event_analysis")
    with pytest.raises(ParameterError) as caught:
        check_parameters(notebook, {"start": "-2d"}, dialect=chint)
    assert str(caught.value) == (
        "parameters device_id, user_id, users are all empty, so the report would read the "
        "whole fleet, and the chint platform has no whole-fleet read; give one of device_id "
        "(a device id), user_id (a user id), users (user ids, or a CSV file with a user_id "
        "column)"
    )
    for narrowed in ({"users": ["u-1"]}, {"user_id": "u-1"}):
        check_parameters(notebook, narrowed, dialect=chint)
    with pytest.raises(ParameterError, match="no whole-fleet read"):  # devices: the platform's
        check_parameters(notebook, {"source": "store"}, dialect=chint)
    for other in (Dialect.named("vendor"), None):  # platforms that read a whole fleet
        check_parameters(notebook, {}, dialect=other)
    with pytest.raises(ParameterError, match="parameters user_id, users are all empty"):
        check_parameters(find_notebook("fleet_inventory"), {}, dialect=chint)


def test_cli_refuses_a_fleet_report_on_a_per_user_platform_before_a_kernel(
    tmp_path: Path,
) -> None:
    args = ("report", "run", "fleet_inventory", "--out", str(tmp_path / "out"))
    done = opslib_cli(*args, env_extra={"OPSLIB_DIALECT": "chint"})
    assert done.returncode == 2, done.stderr
    assert "the chint platform has no whole-fleet read; give one of user_id" in done.stderr
    assert not (tmp_path / "out").exists()


def test_event_types_are_the_platforms_labels() -> None:
    from opslib.dialects import Dialect

    checks = ReportChecks(kinds={"event_types": "event_types"})
    chint = Dialect.named("chint")
    given = {"event_types": ["fault and system report", "0"]}
    assert check_values(checks, declared(event_types=[]), given, dialect=chint) == given
    with pytest.raises(ParameterError) as caught:
        check_values(checks, declared(event_types=[]), {"event_types": ["alarm"]}, dialect=chint)
    assert str(caught.value).startswith(
        "parameter 'event_types' = 'alarm': not an event type; accepted: property report, "
        "fault and system report, fault (or the numbers 0-2)"
    )


def test_a_zone_is_an_iana_name_or_the_offset_a_report_shows() -> None:
    """A platform's zone may be an offset (vendor: +08:00, shown as UTC+08:00): the tz
    parameter takes it as the reports write it."""
    checks = ReportChecks(kinds={"tz": "tz"})
    for value in ("+08:00", "UTC+08:00", "-05:30", "Asia/Shanghai", "UTC"):
        assert check_values(checks, declared(tz=""), {"tz": value}) == {"tz": value}
    for value in ("UTC+8", "+25:00"):
        message = refused(checks, {"tz": value}, tz="")
        assert "an offset is written +HH:MM (+08:00, UTC+08:00, -05:30)" in message, message
