"""Alert rules as a person writes them: read, checked against what a report publishes, and
evaluated over runs (status files only: no kernel)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opslib.reports._alerting import Alerting, evaluate, firing_alerts
from opslib.reports.alerts import (
    AlertConfigError,
    Rule,
    check_rules,
    load_rules,
    parse_condition,
    rules_from_tables,
)

from .alert_fixtures import FakeRuns


def _rule(when: str, report: str = "fleet_inventory", **extra: object) -> list[Rule]:
    return check_rules(rules_from_tables([{"report": report, "when": when, **extra}], "r.toml"))


@pytest.mark.parametrize(
    ("when", "kind", "subject", "op", "amount", "unit"),
    [
        ("fleet.offline_share > 5%", "threshold", "fleet.offline_share", ">", 5.0, "%"),
        ("events.alarms>=100", "threshold", "events.alarms", ">=", 100.0, ""),
        ("events.downtime_hours < 24h", "threshold", "events.downtime_hours", "<", 24.0, "h"),
        ("events.alarms rises_by 50%", "change", "events.alarms", "rises_by", 50.0, "%"),
        ("fleet.online_share falls_by 10 pts", "change", "fleet.online_share", "falls_by", 10.0,
         "pts"),
        ("new in fleet.silent_devices", "new", "fleet.silent_devices", "new in", None, ""),
        ("events.fault_rate_by_product[p-sensor-02] > 20%", "threshold",
         "events.fault_rate_by_product[p-sensor-02]", ">", 20.0, "%"),
    ],
)  # fmt: skip
def test_conditions_read_as_written(
    when: str, kind: str, subject: str, op: str, amount: float | None, unit: str
) -> None:
    condition = parse_condition(when)
    assert (condition.kind, condition.subject, condition.op) == (kind, subject, op)
    assert (condition.amount, condition.unit) == (amount, unit)


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"when": "fleet.ofline_share > 5%"},
         "unknown metric 'fleet.ofline_share' (did you mean 'fleet.offline_share'?); "
         "fleet_inventory publishes: fleet.devices, "),
        ({"when": "fleet.offline_share > 5"},
         "bad unit: fleet.offline_share is a share in %, so '5' does not fit; write 5%"),
        ({"when": "fleet.devices > 5%"},
         "bad unit: fleet.devices is a count, so '5%' does not fit; write 5"),
        ({"when": "fleet.offline_share > five%"}, "threshold 'five' is not a number"),
        ({"when": "fleet.offline_share > 150%"},
         "bad threshold '150%': a share is between 0% and 100%"),
        ({"when": "fleet.online_share falls_by 10"},
         "bad unit: fleet.online_share is a share in %, so '10' does not fit; write 10 pts "
         "(or a relative change in %)"),
        ({"when": "new in fleet.silent"},
         "unknown set 'fleet.silent' (did you mean 'fleet.silent_devices'?)"),
        ({"when": "fleet.devices is big"}, "cannot read 'fleet.devices is big'; write one of"),
        ({"when": "fleet.devices > 5", "for_runs": 0}, "for_runs = 0; give a whole number"),
        ({"when": "fleet.devices > 5", "wehn": "x"}, "unknown keys ['wehn']"),
        ({"when": "fleet.devices > 5", "report": "fleet_inventroy"},
         "no report named 'fleet_inventroy' (did you mean 'fleet_inventory'?)"),
    ],
)  # fmt: skip
def test_a_bad_rule_is_refused_naming_it(table: dict[str, object], said: str) -> None:
    with pytest.raises(AlertConfigError) as refused:
        _rule(**{"report": "fleet_inventory", **table})  # type: ignore[arg-type]
    message = str(refused.value)
    assert message.startswith(f"r.toml: alert 1 ({table.get('report', 'fleet_inventory')}: ")
    assert said in message


def test_rules_of_a_run_all_file_and_its_entries(tmp_path: Path) -> None:
    file = tmp_path / "reports.toml"
    file.write_text(
        '[[run]]\nreport = "fleet_inventory"\nlabel = "hourly"\n\n'
        '[[run.alerts]]\nwhen = "new in fleet.silent_devices"\n\n'
        '[[alerts]]\nreport = "fleet_inventory"\nwhen = "fleet.offline_share > 5%"\n'
        'for_runs = 2\nnotify = ["json://127.0.0.1:9/x"]\n'
    )
    first, second = load_rules(None, run_all_file=file)
    assert (first.label, first.for_runs, first.notify) == (None, 2, ("json://127.0.0.1:9/x",))
    assert (second.report, second.label, second.when) == (
        "fleet_inventory", "hourly", "new in fleet.silent_devices",
    )  # fmt: skip
    assert second.where == f"{file}: run 1: alert 1 (fleet_inventory: new in fleet.silent_devices)"
    file.write_text(
        '[[run]]\nreport = "fleet_inventory"\nlabel = "hourly"\n\n'
        '[[alerts]]\nreport = "fleet_inventory"\nlabel = "daily"\nwhen = "fleet.devices < 1"\n'
    )
    with pytest.raises(AlertConfigError, match="no \\[\\[run\\]\\] of fleet_inventory has label"):
        load_rules(None, run_all_file=file)


def test_a_profile_holds_rules_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.prod]\nbase_url = "https://ops.example.com"\nclient_id = "c"\n'
        'client_secret = "s-123"\n\n'
        '[[profiles.prod.alerts]]\nreport = "event_analysis"\n'
        'when = "events.fault_rate_by_product[*] rises_by 100%"\n'
    )
    monkeypatch.setenv("OPSLIB_CONFIG", str(config))
    (rule,) = load_rules("prod")
    assert rule.condition.relative
    assert rule.report == "event_analysis"
    assert load_rules(None) == []
    from opslib.client import resolve_settings

    assert resolve_settings(profile="prod").base_url == "https://ops.example.com"


def test_the_profile_is_the_one_connect_uses_or_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    monkeypatch.setenv("OPSLIB_CONFIG", str(config))
    with pytest.raises(AlertConfigError, match="profile 'prod' was asked for, but there is no"):
        load_rules("prod")  # no config file: no rule would be read, and connect() refuses
    config.write_text(
        '[profiles.default]\nbase_url = "https://ops.example.com"\n\n'
        '[[profiles.default.alerts]]\nreport = "fleet_inventory"\n'
        'when = "fleet.offline_share > 5%"\n'
    )
    (rule,) = load_rules(None)  # no default_profile: connect() uses the one named default
    assert rule.where.startswith(f"{config}: [profiles.default]: alert 1")
    with pytest.raises(AlertConfigError, match=r"no \[profiles.prod\] table \(profiles: default\)"):
        load_rules("prod")
    monkeypatch.setenv("OPSLIB_PROFILE", "staging")
    with pytest.raises(AlertConfigError, match=r"no \[profiles.staging\] table"):
        load_rules(None)


def test_alerts_check_refuses_what_run_all_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from opslib.cli import main

    file = tmp_path / "reports.toml"
    file.write_text(  # [[alert]] for [[alerts]]: run-all refuses the file
        '[[run]]\nreport = "fleet_inventory"\n\n'
        '[[alert]]\nreport = "fleet_inventory"\nwhen = "fleet.offline_share > 5%"\n'
    )
    assert main(["alerts", "check", "--config", str(file)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"opslib alerts check: {file}: unknown keys ['alert']; "
        "allowed: ['alerts', 'cell_timeout', 'out', 'run', 'run_timeout']"
    )
    file.write_text('[[alerts]]\nreport = "fleet_inventory"\nwhen = "fleet.devices < 1"\n')
    assert main(["alerts", "check", "--config", str(file)]) == 2
    assert "needs at least one [[run]] table" in capsys.readouterr().err
    file.write_text('[[run]]\nreport = "fleet_inventory"\n')
    assert main(["alerts", "check", "--config", str(file), "--profile", "prod"]) == 2
    assert "profile 'prod' was asked for" in capsys.readouterr().err
    assert main(["alerts", "check", "--config", str(file)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"0 alert rules ok ({file}; no profile)"]


def _status(**values: float | None) -> dict[str, object]:
    return {"metrics": {k: {"value": v, "unit": "%"} for k, v in values.items()}}


def test_thresholds_changes_and_families_evaluated() -> None:
    share = Rule("r", parse_condition("x.share > 5%"))
    assert evaluate(share, _status(**{"x.share": 7.5}), None).holds is True
    assert evaluate(share, _status(**{"x.share": 5.0}), None).holds is False
    assert evaluate(share, _status(**{"x.share": None}), None).holds is None  # not computed
    rises = Rule("r", parse_condition("x.share rises_by 50%"))
    assert evaluate(rises, _status(**{"x.share": 9}), None).holds is None  # nothing before
    found = evaluate(rises, _status(**{"x.share": 9}), _status(**{"x.share": 6}))
    assert (found.holds, found.now, found.before) == (True, "9.0%", "6.0%")
    assert evaluate(rises, _status(**{"x.share": 8.9}), _status(**{"x.share": 6})).holds is False
    points = Rule("r", parse_condition("x.share falls_by 10 pts"))
    assert evaluate(points, _status(**{"x.share": 80}), _status(**{"x.share": 90})).holds
    family = Rule("r", parse_condition("x.rate[*] > 20%"))
    now = _status(**{"x.rate[p-a]": 3.0, "x.rate[p-b]": 40.0, "x.rate": 10.0})
    found = evaluate(family, now, None)
    assert found.holds is True
    assert found.detail == "1 of 2 hold (> 20%): x.rate[p-b] is 40.0%"


def test_new_members_of_a_set() -> None:
    rule = Rule("r", parse_condition("new in x.devices"))
    before = {"sets": {"x.devices": {"members": ["d1", "d2"], "noun": "device"}}}
    now = {"sets": {"x.devices": {"members": ["d2", "d3", "d4"], "noun": "device"}}}
    found = evaluate(rule, now, before)
    assert found.holds is True
    assert found.detail == "2 new in x.devices: d3, d4"
    assert evaluate(rule, before, before).holds is False
    assert evaluate(rule, now, None).holds is None
    now["sets"]["x.devices"]["names"] = {"d3": "Hall · Plug"}  # type: ignore[index]
    assert evaluate(rule, now, before).detail == "2 new in x.devices: Hall · Plug (d3), d4"


def test_many_new_members_are_counted_as_the_changes_block_counts_them() -> None:
    # Before: "and 1002 more" here where the changes block said "and 1,002 more".
    rule = Rule("r", parse_condition("new in x.devices"))
    before = {"sets": {"x.devices": {"members": [], "noun": "device"}}}
    ids = [f"d{i}" for i in range(1007)]
    now = {"sets": {"x.devices": {"members": ids, "noun": "device", "names": {"d0": "Hall"}}}}
    detail = evaluate(rule, now, before).detail
    assert detail == "1,007 new in x.devices: Hall (d0), d1, d2, d3, d4 and 1,002 more"


def test_a_figure_the_platform_cannot_give_is_said_apart_from_a_first_run() -> None:
    # Before: "not computed or nothing to compare" alike, and a set a report could not
    # compute (chint has no fault status) said "nothing to compare with" on every run.
    share = Rule("r", parse_condition("x.share rises_by 50%"))
    assert evaluate(share, _status(**{"x.share": None}), None).detail == (
        "x.share: not computed in this run"
    )
    assert evaluate(share, _status(**{"x.share": 4}), None).detail == (
        "x.share: nothing to compare with"
    )
    new = Rule("r", parse_condition("new in x.faulty"))
    uncomputed = {**_status(**{"x.faulty": None}), "sets": {}}
    found = evaluate(new, uncomputed, uncomputed)
    assert (found.holds, found.detail) == (None, "x.faulty: not computed in this run")


def test_a_family_that_does_not_hold_names_its_highest_member() -> None:
    # Before: "no x.rate[*] (threshold > 50%)", as if the report had published none.
    family = Rule("r", parse_condition("x.rate[*] > 50%"))
    now = _status(**{"x.rate[p-a]": 3.0, "x.rate[p-b]": 40.0, "x.rate": 10.0})
    found = evaluate(family, now, None)
    assert (found.holds, found.now) == (False, "0 of 2")
    assert found.detail == "0 of 2 hold (> 50%); the highest: x.rate[p-b] is 40.0%"
    assert evaluate(family, _status(**{"x.rate": 1.0}), None).detail == (
        "no x.rate[*] in this run (threshold > 50%)"
    )
    below = Rule("r", parse_condition("x.rate[*] < 2%"))
    assert evaluate(below, now, None).detail == (
        "0 of 2 hold (< 2%); the lowest: x.rate[p-a] is 3.0%"
    )
    named = _status(**{"x.rate[p-a]": 3.0, "x.rate[p-b]": 60.0})
    named["metrics"]["x.rate[p-b]"]["part"] = "Lamp (p-b)"  # type: ignore[index]
    assert evaluate(family, named, None).detail == "1 of 2 hold (> 50%): Lamp (p-b) is 60.0%"


def test_a_rule_fires_once_after_for_runs_and_clears_once(tmp_path: Path) -> None:
    rule = rules_from_tables(
        [{"report": "quick", "when": "quick.share > 5%", "for_runs": 2}], "reports.toml"
    )
    runs = FakeRuns(tmp_path, Alerting(tuple(rule)))
    events = [
        [a["event"] for a in runs.run({"quick.share": share}).alerts]
        for share in (1.0, 9.0, 9.0, 9.0, 9.0)
    ]
    assert events == [[""], [""], ["fired"], [""], [""]]
    assert list(firing_alerts(tmp_path)) == [("quick", "")]
    failed = runs.run({}, outcome="failed")  # cannot tell: nothing changes
    assert failed.alerts[0]["holds"] is None
    assert failed.alerts[0]["firing"] is True
    events = [[a["event"] for a in runs.run({"quick.share": s}).alerts] for s in (2.0, 2.0, 9.0)]
    assert events == [["cleared"], [""], [""]]  # a single run over: for_runs is 2
    assert firing_alerts(tmp_path) == {}
    state = json.loads((tmp_path / ".alerts" / "quick.json").read_text())
    (item,) = state["rules"].values()
    assert item["holding"] == 1
    assert item["firing"] is False


def test_each_entry_keeps_its_own_state_and_only_its_parameters_compare(tmp_path: Path) -> None:
    rule = rules_from_tables([{"report": "quick", "when": "new in quick.devices"}], "r.toml")
    runs = FakeRuns(tmp_path, Alerting(tuple(rule)))
    runs.run({}, {"quick.devices": ["d1"]}, label="a")
    runs.run({}, {"quick.devices": ["d9"]}, label="b", parameters={"x": 1})
    second = runs.run({}, {"quick.devices": ["d1", "d2"]}, label="a")
    assert second.changes is not None
    assert second.changes["sets"][0]["added"] == ["d2"]
    assert second.alerts[0]["event"] == "fired"
    other = runs.run({}, {"quick.devices": ["d1", "d9"]}, label="b", parameters={"x": 2})
    assert other.changes is None  # other parameters: nothing to compare with
    assert other.alerts[0]["holds"] is None
    assert sorted(firing_alerts(tmp_path)) == [("quick", "a")]
