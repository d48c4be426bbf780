"""Alerts through the runner: a real SMTP server (aiosmtpd) and a real webhook receiver get one
message when a condition starts to hold and one when it clears; a bad rule stops everything
before a kernel; every notification names its report."""

from __future__ import annotations

import email
import email.policy
import json
import time
from pathlib import Path
from typing import Any

import pytest

from opslib.cli import main
from opslib.reports.runall import run_all

from .alert_fixtures import figures, metrics_notebook
from .runs import platform_env
from .test_notify import _Inbox, hook, smtp
from .test_platform import _free_port
from .test_runner import opslib_cli

__all__ = ["hook", "metrics_notebook", "smtp"]  # fixtures used here


def _batch(path: Path, source: Path, targets: list[str]) -> Path:
    path.write_text(
        f'[[run]]\nreport = "metrics"\nlabel = "hourly"\n'
        f"parameters = {{ source = {json.dumps(str(source))} }}\n\n"
        '[[alerts]]\nreport = "metrics"\nwhen = "quick.share > 5%"\nfor_runs = 2\n'
        f"notify = {json.dumps(targets)}\n"
    )
    return path


def test_one_message_when_a_condition_starts_to_hold_none_while_it_holds_one_when_it_clears(
    metrics_notebook: Path,
    tmp_path: Path,
    platform: Any,
    smtp: tuple[int, _Inbox],
    hook: tuple[int, list[dict[str, Any]]],
) -> None:
    smtp_port, inbox = smtp
    hook_port, posts = hook
    mail = f"mailto://127.0.0.1:{smtp_port}?to=ops@example.com&from=opslib@example.com"
    source = tmp_path / "figures.json"
    config = _batch(tmp_path / "reports.toml", source, [mail, f"json://127.0.0.1:{hook_port}/a"])
    out = tmp_path / "out"
    env = platform_env(platform)
    told = []
    for share in (7.5, 8.0, 9.0, 2.0):  # holds, holds (2 runs: fires), holds, clears
        source.write_text(json.dumps(figures(share)))
        batch = run_all(config, out_dir=out, env=env)
        assert batch.ok, [r.reason for r in batch.results]
        told.append((len(inbox.messages), len(posts)))
    assert told == [(0, 0), (1, 1), (1, 1), (2, 2)]

    fired = email.message_from_bytes(inbox.messages[0], policy=email.policy.default)
    subject = "metrics/hourly alert: quick.share > 5%: now 8.0%, before 7.5%"
    assert str(fired["subject"]) == subject
    text = fired.get_body(preferencelist=("plain",))
    assert text is not None
    body = text.get_content()
    assert "Alert: quick.share > 5% (held on 2 consecutive runs)" in body
    assert "Report: metrics/hourly (run-all entry hourly)" in body
    assert "Now: 8.0%; before: 7.5%; threshold: > 5%" in body
    assert "↑ share (quick.share): 7.5% → 8.0% (+0.5 pts)" in body  # since the last run
    (attached,) = list(fired.iter_attachments())
    assert attached.get_filename() == "metrics.html"
    page = attached.get_payload(decode=True).decode()
    assert "Since the last run" in page
    assert json.loads(posts[0]["body"])["title"] == subject

    cleared = email.message_from_bytes(inbox.messages[1], policy=email.policy.default)
    assert str(cleared["subject"]) == (
        "metrics/hourly cleared: quick.share > 5%: now 2.0%, before 9.0%"
    )
    assert json.loads(posts[1]["body"])["title"] == str(cleared["subject"])
    statuses = sorted(out.glob("metrics/*/status.json"))
    events = [json.loads(p.read_text())["alerts"][0]["event"] for p in statuses]
    assert events == ["", "fired", "", "cleared"]
    last = json.loads(statuses[-1].read_text())
    assert last["alerts"][0]["notify"] == {"targets": 2, "delivered": 2, "undelivered": []}
    assert last["metrics"]["quick.share"] == {"value": 2.0, "unit": "%", "label": "share"}

    # The operator's page: the alert held after the third run, with the trend of the share.
    page = (out / "index.html").read_text()
    assert "Alerts that hold now" not in page  # cleared
    assert '<svg class="spark"' in page
    assert "↓ share (quick.share): 9.0% → 2.0%" in page


def test_a_bad_rule_exits_2_naming_it_before_any_kernel(
    metrics_notebook: Path, tmp_path: Path, platform: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text(
        '[[run]]\nreport = "metrics"\n\n[[alerts]]\nreport = "metrics"\n'
        'when = "quick.shares > 5%"\n'
    )
    out = tmp_path / "out"
    t0 = time.monotonic()
    done = opslib_cli(
        "report", "run-all", "--config", str(config), "--out", str(out),
        env_extra={**platform_env(platform), "OPSLIB_NOTEBOOKS": str(metrics_notebook.parent)},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"opslib report run-all: {config}: alert 1 (metrics: quick.shares > 5%): unknown metric "
        "'quick.shares' (did you mean 'quick.share'?); metrics publishes: quick.count, "
        "quick.devices, quick.hours, quick.rate, quick.rate[*], quick.share; nothing was run"
    )
    assert not out.exists()  # no run directory: no kernel started
    assert time.monotonic() - t0 < 15

    for when, said in [
        ("quick.share > 5", "bad unit: quick.share is a share in %, so '5' does not fit; write 5%"),
        ("quick.hours > 2 days", "cannot read 'quick.hours > 2 days'"),
        ("quick.count > -3", "bad threshold '-3': quick.count is never below 0"),
    ]:
        config.write_text(
            f'[[run]]\nreport = "metrics"\n\n[[alerts]]\nreport = "metrics"\nwhen = "{when}"\n'
        )
        assert main(["alerts", "check", "--config", str(config)]) == 2
        assert (
            capsys.readouterr()
            .err.strip()
            .startswith(f"opslib alerts check: {config}: alert 1 (metrics: {when}): {said}")
        )
    config.write_text(
        '[[run]]\nreport = "metrics"\n\n[[alerts]]\nreport = "metrics"\n'
        'when = "new in quick.devices"\nnotify = ["json://127.0.0.1:9/x"]\n'
    )
    assert main(["alerts", "check", "--config", str(config)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"1 alert rule ok ({config}; no profile)",
        "  metrics (every run): new in quick.devices (1 target)",
    ]


def test_alerts_test_sends_one_sample(
    metrics_notebook: Path,
    tmp_path: Path,
    hook: tuple[int, list[dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    port, posts = hook
    config = tmp_path / "reports.toml"
    config.write_text(
        '[[run]]\nreport = "metrics"\n\n[[alerts]]\nreport = "metrics"\n'
        f'when = "quick.share > 5%"\nnotify = ["json://127.0.0.1:{port}/t"]\n'
    )
    assert main(["alerts", "test", "--config", str(config)]) == 0
    (post,) = posts
    message = json.loads(post["body"])
    assert message["title"] == (
        "[sample] metrics alert: quick.share > 5%: now (sample), before (sample)"
    )
    assert "a sample of quick.share > 5%: no report was run" in message["message"]
    assert "sample of metrics (every run): quick.share > 5% sent" in capsys.readouterr().out


def test_the_platform_down_notification_names_the_report_and_its_label(
    tiny: Path, tmp_path: Path, platform: Any, hook: tuple[int, list[dict[str, Any]]]
) -> None:
    port, posts = hook
    down = f"http://127.0.0.1:{_free_port()}"  # nothing listens there
    done = opslib_cli(
        "report", "run", "quick", "--label", "nightly", "--out", str(tmp_path / "out"),
        "--notify", f"json://127.0.0.1:{port}/down",
        env_extra={**platform_env(platform), "OPSLIB_BASE_URL": down},
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    (post,) = posts
    title = json.loads(post["body"])["title"]
    assert title.startswith(f"quick/nightly: nothing was run: cannot reach {down}")
