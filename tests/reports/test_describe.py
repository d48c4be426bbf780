"""opslib.reports._describe: a run's parameters as a sentence, the report's human title."""

from __future__ import annotations

from pathlib import Path

from opslib.reports._describe import (
    describe_parameters,
    notebook_defaults,
    report_title,
    utc_text,
)

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"


def test_event_parameters_read_as_a_sentence_without_the_interactive_flag() -> None:
    text = describe_parameters(
        {
            "start": "-1d",
            "end": "now",
            "device_id": "",
            "user_id": "",
            "event_types": ["alarm", "offline"],
            "freq": "1h",
            "interactive": False,
            "output_dir": "/tmp/x",
        },
        started=utc_text("2026-11-24T06:00:41+00:00"),
    )
    assert text == (
        "Last day to 2026-11-24 06:00 UTC, event types alarm, offline, 1h buckets, whole fleet."
    )
    assert "interactive" not in text
    assert "/tmp/x" not in text


def test_other_reports_parameters() -> None:
    fleet = describe_parameters(
        {"user_id": "", "category_id": 0, "product_id": "", "status": "", "silent_days": 7}
    )
    assert fleet == "Whole fleet, all categories, every status, silent after 7 days."
    upkeep = describe_parameters(
        {"products_path": "/p/products.csv", "apply": True, "allow_delete": False}
    )
    assert upkeep == "Desired-state file /p/products.csv, apply, no deletes."


def test_titles_come_from_the_notebooks_heading() -> None:
    assert report_title(NOTEBOOKS / "event_analysis.ipynb", "event_analysis") == "Event analysis"
    assert report_title(NOTEBOOKS / "nope.ipynb", "nope") == "nope"


def test_the_notebooks_defaults_fill_what_a_run_did_not_give() -> None:
    defaults = notebook_defaults(NOTEBOOKS / "event_analysis.ipynb")
    assert defaults["start"] == "-7d"
    assert defaults["event_types"] == []
    text = describe_parameters({**defaults, "freq": "6h"}, started="2026-11-24 06:00 UTC")
    assert text == "Last 7 days to 2026-11-24 06:00 UTC, all event types, 6h buckets, whole fleet."
    assert notebook_defaults(NOTEBOOKS / "nope.ipynb") == {}


def test_a_read_of_some_users_is_not_called_the_whole_fleet() -> None:
    period = {"start": "-7d", "end": "now", "event_types": [], "device_id": "", "user_id": ""}
    text = describe_parameters({**period, "users": ["/data/north.csv"]}, started="06:00 UTC")
    assert text == "Last 7 days to 06:00 UTC, all event types, users of north.csv."
    fleet = {"user_id": "", "category_id": 0, "silent_days": 7}
    assert describe_parameters({**fleet, "users": ["u-1", "u-2"]}) == (
        "Users u-1, u-2, all categories, silent after 7 days."
    )
    assert describe_parameters({**fleet, "users": "u-1,u-2,u-3,u-4"}).startswith("4 users, ")
    assert describe_parameters({**fleet, "users": ["a.csv", "u-1"]}).startswith(
        "Users of a.csv and u-1, "
    )


def test_a_fleet_selection_of_users_counts_them(tmp_path: Path) -> None:
    from opslib.reports.notebook import fleet_selection

    users = tmp_path / "users.csv"
    users.write_text("user_id\nu-1\nu-2\n")
    assert fleet_selection(users=[str(users)], status="online") == (
        "2 users' devices, status online"
    )
    assert fleet_selection(user_id="u-9", users=[str(users)]) == "user u-9"
    assert fleet_selection() == "all devices"


def test_a_fixed_offset_zone_is_named_as_the_times_name_it() -> None:
    """The vendor platform's zone is +08:00: its times read "... UTC+08:00"."""
    text = describe_parameters({"user_id": "", "silent_days": 7, "tz": "+08:00"})
    assert text == "Whole fleet, silent after 7 days, times in UTC+08:00."
