"""Notifications: a real SMTP server and a real HTTP receiver get the message; a target
that is down changes nothing but a count in status.json."""

from __future__ import annotations

import email
import email.policy
import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import nbformat
import pytest
from aiosmtpd.controller import Controller

from opslib.reports.notify import NotifySettings
from opslib.reports.platform import Platform

from .conftest import KERNEL
from .test_platform import _free_port, write_config
from .test_runner import opslib_cli

HOOK_SECRET = "hook-secret-7f3a"  # the webhook's own credential, never in a message


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[int, _Inbox]]:
    """A local SMTP server (aiosmtpd): (port, inbox)."""
    inbox = _Inbox()
    port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield port, inbox
    controller.stop()


@pytest.fixture
def hook() -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """A local HTTP receiver of webhooks: (port, [{"path", "headers", "body"}])."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(size)
            received.append({"path": self.path, "headers": dict(self.headers), "body": body})
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], received
    server.shutdown()
    server.server_close()


def _write_leaky(path: Path) -> Path:
    """A notebook that fails with the account's password in its error message."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = KERNEL
    params = nbformat.v4.new_code_cell("n: int = 1  # unused")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Leaky"),
        params,
        nbformat.v4.new_markdown_cell("## The login"),
        nbformat.v4.new_code_cell(
            "from opslib.client import resolve_settings\n"
            "secret = resolve_settings().password.get_secret_value()\n"
            "raise RuntimeError(f'could not use {secret}')"
        ),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def test_a_failed_run_all_mails_the_html_and_posts_the_webhook_without_a_secret(
    tiny: Path,
    tmp_path: Path,
    platform: Any,
    monkeypatch: pytest.MonkeyPatch,
    smtp: tuple[int, _Inbox],
    hook: tuple[int, list[dict[str, Any]]],
) -> None:
    smtp_port, inbox = smtp
    hook_port, posts = hook
    config = write_config(tmp_path / "config.toml", platform)
    mail = f"mailto://127.0.0.1:{smtp_port}?to=ops@example.com&from=opslib@example.com"
    webhook = f"json://hooks:{HOOK_SECRET}@127.0.0.1:{hook_port}/opslib"
    config.write_text(
        config.read_text() + f'\n[notify]\nwhen = "failure"\nurls = ["{mail}", "{webhook}"]\n'
    )
    monkeypatch.setenv("OPSLIB_CONFIG", str(config))
    leaky = _write_leaky(tmp_path / "nb" / "leaky.ipynb")
    batch = tmp_path / "reports.toml"
    batch.write_text(
        '[[run]]\nreport = "quick"\nlabel = "broken"\nparameters = { fail = true }\n\n'
        f'[[run]]\nreport = "{leaky}"\n\n[[run]]\nreport = "quick"\nlabel = "fine"\n'
    )
    out = tmp_path / "out"
    done = opslib_cli(
        "report", "run-all", "--config", str(batch), "--profile", "staging", "--out", str(out)
    )
    assert done.returncode == 1, done.stderr
    assert "notification not delivered" not in done.stderr
    creds = platform.credentials("ops")
    secrets = [creds["password"], creds["client_secret"], HOOK_SECRET]

    (raw,) = inbox.messages
    for secret in secrets:
        assert secret.encode() not in raw
    message = email.message_from_bytes(raw, policy=email.policy.default)
    subject = str(message["subject"])
    assert subject == (
        "quick/broken failed: The report failed in section 'The failure point': "
        "ValueError: quick failure.; leaky failed: The report failed in section "
        "'The login': RuntimeError: could not use ***."
    )
    text = message.get_body(preferencelist=("plain",))
    assert text is not None
    body = text.get_content()
    host = platform.base_url.removeprefix("http://")
    assert f"Platform: profile 'staging' ({host}); account Ops desk (555*****01), role ops" in body
    assert f"Run: opslib report run-all {batch} on host {socket.gethostname()}, started " in body
    assert re.search(r", started \d{4}-\d\d-\d\d \d\d:\d\d UTC; exit", body)  # as index.html
    assert "; exit 1 (report)" in body
    assert "quick/fine: ok, cause 0 ok" in body
    assert "leaky: HTML not attached: it holds a secret value" in body
    attachments = {part.get_filename(): part for part in message.iter_attachments()}
    assert list(attachments) == ["quick.html"]
    statuses = {
        s["label"] or s["report"]: s
        for s in (json.loads(p.read_text()) for p in out.glob("*/*/status.json"))
    }
    html = Path(statuses["broken"]["html"]).read_bytes()
    assert attachments["quick.html"].get_payload(decode=True) == html

    (post,) = posts
    assert post["path"] == "/opslib"
    for secret in secrets:
        assert secret.encode() not in post["body"]
    posted = json.loads(post["body"])
    assert posted["title"] == subject
    assert posted["message"] == body.replace("\r\n", "\n").rstrip("\n")
    for status in statuses.values():
        assert status["notify"] == {"targets": 2, "delivered": 2, "undelivered": []}


def test_a_target_that_is_down_changes_nothing_but_its_count(
    tiny: Path, tmp_path: Path, env: dict[str, str], hook: tuple[int, list[dict[str, Any]]]
) -> None:
    down = f"json://127.0.0.1:{_free_port()}/x"  # nothing listens there
    hook_port, posts = hook
    up = f"json://127.0.0.1:{hook_port}/y"
    done = opslib_cli(
        "report", "run", "quick", "-p", "fail", "true", "--notify", down, "--notify", up,
        "--out", str(tmp_path), env_extra=env,
    )  # fmt: skip
    assert done.returncode == 1  # the report's failure, as without notifications
    (line,) = [x for x in done.stderr.splitlines() if "notification" in x]
    assert line.startswith(
        f"opslib report run: notification not delivered to json://127.0.0.1:{down.split(':')[2]}"
    )
    (status_file,) = tmp_path.glob("quick/*/status.json")
    status = json.loads(status_file.read_text())
    assert status["outcome"] == "failed"
    assert status["cause"] == 1
    assert status["notify"]["targets"] == 2
    assert status["notify"]["delivered"] == 1
    (undelivered,) = status["notify"]["undelivered"]
    assert undelivered["target"].startswith(down.rstrip("/x"))
    assert undelivered["error"]
    assert len(posts) == 1  # the other target still got it


def test_when_decides_and_ok_runs_are_told_only_always(
    tiny: Path, tmp_path: Path, env: dict[str, str], hook: tuple[int, list[dict[str, Any]]]
) -> None:
    hook_port, posts = hook
    url = f"json://127.0.0.1:{hook_port}/z"
    base = ["report", "run", "quick", "--notify", url, "--out", str(tmp_path)]
    assert opslib_cli(*base, env_extra=env).returncode == 0
    assert posts == []  # when = failure (the default): an ok run tells nobody
    assert opslib_cli(*base, "--notify-when", "always", env_extra=env).returncode == 0
    (post,) = posts
    assert json.loads(post["body"])["title"] == "quick: ok"  # the report, named
    settings = NotifySettings((url,), "partial")
    assert settings.wants([], 5)  # nothing could run (a lock held)


def test_a_refused_notify_table_exits_2_before_anything_runs(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[notify]\nwhen = "sometimes"\n')
    done = opslib_cli(
        "report", "run", "quick", "--out", str(tmp_path / "o"),
        env_extra={**env, "OPSLIB_CONFIG": str(config)},
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "opslib report run: notify when = 'sometimes'; allowed: failure, partial, always; "
        "nothing was run"
    )
    assert not (tmp_path / "o").exists()


def test_a_profile_notify_table_overrides_the_global_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opslib.client import resolve_settings
    from opslib.reports.notify import NotifyConfigError, known_secrets, notify_settings

    config = tmp_path / "config.toml"
    config.write_text(
        '[notify]\nwhen = "failure"\nurls = ["json://a.example.com/x"]\n\n'
        '[profiles.prod]\nbase_url = "https://ops.example.com"\nclient_id = "c"\n'
        'client_secret = "client-secret-1"\narea_code = "1"\nphone = "5550000001"\n'
        'password = "password-123"\n\n[profiles.prod.notify]\nwhen = "partial"\n'
    )
    monkeypatch.setenv("OPSLIB_CONFIG", str(config))
    assert notify_settings("prod", urls=["json://b.example.com/y"]) == NotifySettings(
        ("json://a.example.com/x", "json://b.example.com/y"), "partial"
    )
    assert notify_settings(None).when == "failure"
    assert notify_settings("prod", when="always").when == "always"
    with pytest.raises(NotifyConfigError, match=r"no \[profiles.stage\] table \(profiles: prod\)"):
        notify_settings("stage")  # a typo is named, not read as a profile without targets
    # A URL Apprise cannot send to was told only after the run, as "not delivered".
    for url, shown in [("notaurl", "given"), ("tgram://token-123@x", "'tgram://x...'")]:
        with pytest.raises(NotifyConfigError) as info:
            notify_settings("prod", urls=[url])
        assert str(info.value).startswith(f"the notify URL {shown} is not one Apprise can")
        assert "token-123" not in str(info.value)
    # The client reads a profile that holds a notify table.
    assert resolve_settings(profile="prod").base_url == "https://ops.example.com"
    assert {"client-secret-1", "password-123"} <= known_secrets("prod")
    # A base URL's own credentials never reach a message through the platform's name.
    assert Platform(base_url="https://u:pw-1234@ops.example.com:8443").host == (
        "ops.example.com:8443"
    )
