"""The platform of a run: explicit, named everywhere, checked before any kernel, failing fast."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from opslib.reports import run_report, runall
from opslib.reports.cli import demo_command
from opslib.reports.platform import (
    DEMO_BANNER,
    Platform,
    PlatformNotConfigured,
    open_connection,
)
from opslib.reports.runall import run_all

from .conftest import KERNEL
from .test_locks import _split_importtime
from .test_runner import opslib_cli


def write_config(path: Path, platform: Any, *, role: str = "ops", **overrides: str) -> Path:
    """A config file with [profiles.staging] pointing at ``platform`` and [profiles.demo]."""
    creds = {**platform.credentials(role), "base_url": platform.base_url, **overrides}
    lines = ["[profiles.staging]", *(f"{k} = {json.dumps(v)}" for k, v in creds.items())]
    lines += ["", "[profiles.demo]", 'base_url = ""', "", "[profiles.broken]", 'phone = "1"']
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def config(tmp_path: Path, platform: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's config file (OPSLIB_CONFIG) holds a staging profile of the test platform."""
    path = write_config(tmp_path / "config.toml", platform)
    monkeypatch.setenv("OPSLIB_CONFIG", str(path))
    return path


# --- nothing configured ------------------------------------------------------------------


def test_nothing_configured_is_refused_with_how_to_configure(tiny: Path, tmp_path: Path) -> None:
    with pytest.raises(PlatformNotConfigured) as info:
        run_report("quick", out_dir=tmp_path / "out")
    message = str(info.value)
    assert message.startswith("no platform configured: add [profiles.NAME] with base_url")
    assert "--profile NAME" in message
    assert "--demo" in message
    done = opslib_cli("report", "run", "quick", "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("opslib report run: no platform configured: ")
    assert not (tmp_path / "out").exists()
    batch = opslib_cli("report", "run-all", "--out", str(tmp_path / "out"))  # the repo's file
    assert batch.returncode == 2
    assert "no platform configured" in batch.stderr
    assert not (tmp_path / "out").exists()


def test_a_profile_without_base_url_is_refused_and_one_with_an_empty_one_is_the_demo(
    tiny: Path, tmp_path: Path, config: Path
) -> None:
    with pytest.raises(PlatformNotConfigured, match=r"profile 'broken' .* has no base_url"):
        open_connection(profile="broken")
    demo = open_connection(profile="demo").platform
    assert demo.demo is True
    assert demo.role == "ops"
    assert demo.name == "the embedded demo platform (DEMO DATA)"


# --- named in every status, header and index ---------------------------------------------


def test_a_profile_run_names_the_platform_and_the_account(
    tiny: Path, tmp_path: Path, config: Path, platform: Any
) -> None:
    done = opslib_cli("report", "run", "outcome", "--profile", "staging", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    status = json.loads(next(tmp_path.glob("outcome/*/status.json")).read_text())
    host = platform.base_url.removeprefix("http://")
    assert status["profile"] == "staging"
    assert status["platform"] == {
        "profile": "staging", "base_url": platform.base_url, "demo": False,
        "user_id": status["platform"]["user_id"], "nick_name": "Ops desk",
        "phone": "555*****01", "role": "ops",
    }  # fmt: skip
    html = Path(status["html"]).read_text()
    assert f"profile 'staging' ({host})" in html  # the header
    assert "Ops desk (555*****01), role ops" in html
    assert "DEMO DATA" not in html
    notebook = nbformat.read(status["output_notebook"], as_version=4)
    shown = json.dumps([c.get("outputs", []) for c in notebook.cells])
    assert f"Platform: profile &#x27;staging&#x27; ({host})." in shown  # nb.connect's line
    index = (tmp_path / "index.html").read_text()
    assert f"profile &#x27;staging&#x27; ({host})" in index
    assert "5550000001" not in html + index + json.dumps(status)


def test_the_platform_check_logs_in_and_names_the_account_without_pandas(
    config: Path, platform: Any
) -> None:
    """The check every run makes first (its own process) needs no frames: pandas, numpy and
    pyarrow load in the kernel, not before the platform has answered."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "opslib.reports._preflight"],
        env={**os.environ, "OPSLIB_PROFILE": "staging"},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    imported, _ = _split_importtime(done.stderr)
    answer = json.loads(done.stdout)
    assert answer["ok"] is True, answer
    assert answer["platform"]["phone"] == "555*****01"
    assert answer["platform"]["nick_name"] == "Ops desk"
    assert not {"pandas", "numpy", "pyarrow"} & imported, sorted(imported)


def test_the_run_command_itself_imports_no_pandas(tiny: Path, tmp_path: Path, config: Path) -> None:
    """The `opslib` process of a run waits on its worker and kernel: it never types a frame."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "opslib.cli", "report", "run", "outcome",
         "--profile", "staging", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    imported, lines = _split_importtime(done.stderr)
    assert done.returncode == 0, lines
    assert not {"pandas", "numpy", "pyarrow"} & imported, sorted(imported)


def test_a_demo_run_is_marked_demo_data_everywhere(tiny: Path, tmp_path: Path) -> None:
    done = opslib_cli("report", "run", "outcome", "--demo", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    status = json.loads(next(tmp_path.glob("outcome/*/status.json")).read_text())
    assert status["platform"]["demo"] is True
    assert Platform.from_dict(status["platform"]).name == "the embedded demo platform (DEMO DATA)"
    html = Path(status["html"]).read_text()
    assert f'<div class="opslib-demo">{DEMO_BANNER}</div>' in html  # the page's banner
    assert html.count(DEMO_BANNER) == 1  # once: the notebook's own line is left out
    index = (tmp_path / "index.html").read_text()
    assert "DEMO DATA: 1 of the 1 latest runs used the embedded demo platform" in index


def test_make_demo_runs_every_report_as_demo_data(
    tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text('[[run]]\nreport = "outcome"\n\n[[run]]\nreport = "quick"\n')
    assert demo_command(out=str(tmp_path / "out"), config=str(config)) == 0
    printed = capsys.readouterr().out
    assert "2 of 2 reports ok" in printed
    statuses = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*/*/status.json")]
    assert [s["platform"]["demo"] for s in statuses] == [True, True]
    assert "DEMO DATA" in (tmp_path / "out" / "index.html").read_text()


# --- checked before any kernel -----------------------------------------------------------


def test_apply_as_an_ops_account_is_refused_before_a_kernel(tmp_path: Path, config: Path) -> None:
    desired = tmp_path / "products.csv"
    desired.write_text("product_id,product_name,category_id,net_type,node_type\n")
    done = opslib_cli(
        "report", "run", "product_upkeep", "-p", "products_path", str(desired),
        "-p", "apply", "true", "--profile", "staging", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "opslib report run: parameter 'apply' = True needs the admin role; the account "
        "Ops desk (555*****01), role ops on profile 'staging'"
    )
    assert not (tmp_path / "out").exists()


def test_refused_credentials_stop_the_run_with_the_url_and_the_profile(
    tiny: Path, tmp_path: Path, fresh_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    platform = fresh_platform  # a wrong password counts against the account's logins
    path = write_config(tmp_path / "config.toml", platform, password="wrong-password-1")
    monkeypatch.setenv("OPSLIB_CONFIG", str(path))
    done = opslib_cli(
        "report", "run", "quick", "--profile", "staging", "--out", str(tmp_path / "o")
    )
    assert done.returncode == 3  # the platform's cause
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"opslib report run: login refused by {platform.base_url} (profile staging): "
        "VerificationFailed"
    )
    assert not (tmp_path / "o").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_run_all_with_the_platform_down_skips_every_report_after_one_check(
    tiny: Path, tmp_path: Path, platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{_free_port()}"  # nothing listens there
    monkeypatch.setenv(
        "OPSLIB_CONFIG", str(write_config(tmp_path / "c.toml", platform, base_url=url))
    )
    config = tmp_path / "reports.toml"
    config.write_text("".join(f'[[run]]\nreport = "quick"\nlabel = "n{i}"\n' for i in range(5)))
    checks = []
    real = runall.start_connection
    monkeypatch.setattr(runall, "start_connection", lambda **kw: checks.append(kw) or real(**kw))
    batch = run_all(config, out_dir=tmp_path / "out", profile="staging")
    assert len(checks) == 1  # one check (one login attempt) for the whole batch
    assert batch.stopped.startswith(f"cannot reach {url} (profile staging): TransportError: ")
    assert [r.outcome for r in batch.results] == ["skipped"] * 5
    assert {r.reason for r in batch.results} == {f"Not run: {batch.stopped}."}
    assert not list((tmp_path / "out").glob("*/*/*.ipynb"))  # no kernel ever started
    assert "skipped" in batch.index.read_text()
    done = opslib_cli(
        "report", "run-all", "--config", str(config), "--profile", "staging",
        "--out", str(tmp_path / "cli"),
    )  # fmt: skip
    assert done.returncode == 3
    assert done.stderr.splitlines() == [
        *(f"quick/n{i}: skipped" for i in range(5)),
        f"opslib report run-all: stopped: {batch.stopped}",
    ]  # the cause once
    assert "0 of 5 reports ok" in done.stdout


# --- the platform lost during a run-all --------------------------------------------------


def _write_stopper(path: Path) -> None:
    """A notebook that stops the platform's server process, then reads from it."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = KERNEL
    params = nbformat.v4.new_code_cell("pid: int = 0  # the server to stop")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Stopper"),
        params,
        nbformat.v4.new_code_cell(
            "import os, signal, time\nimport opslib\n\nclient = opslib.connect()\n"
            "os.kill(pid, signal.SIGKILL)\ntime.sleep(0.5)\nclient.devices.list(progress=False)"
        ),
    ]
    nbformat.write(nb, path)


@pytest.fixture
def server(seeded_db: Path, tmp_path: Path) -> Iterator[tuple[str, int]]:
    """``opslib server`` in a process of its own (a kernel can stop it): (base_url, pid)."""
    db = tmp_path / "server.db"
    shutil.copy(seeded_db, db)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "opslib.cli", "server", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(f"{url}/", timeout=1)
            break
        except OSError as exc:
            if getattr(exc, "code", None):  # an HTTP answer: the server is up
                break
            time.sleep(0.1)
    yield url, proc.pid
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    proc.wait(30)


def test_run_all_stops_when_the_platform_goes_away_during_the_batch(
    tiny_dir: Path,
    tmp_path: Path,
    platform: Any,
    server: tuple[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, pid = server
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    _write_stopper(notebooks / "stopper.ipynb")
    (notebooks / "quick.ipynb").write_bytes((tiny_dir / "quick.ipynb").read_bytes())
    monkeypatch.setenv("OPSLIB_NOTEBOOKS", str(notebooks))
    monkeypatch.setenv(
        "OPSLIB_CONFIG", str(write_config(tmp_path / "c.toml", platform, base_url=url))
    )
    config = tmp_path / "reports.toml"
    config.write_text(
        '[[run]]\nreport = "quick"\n\n'
        f'[[run]]\nreport = "stopper"\nparameters = {{ pid = {pid} }}\n\n'
        '[[run]]\nreport = "quick"\nlabel = "a"\n\n[[run]]\nreport = "quick"\nlabel = "b"\n'
    )
    batch = run_all(config, out_dir=tmp_path / "out", profile="staging")
    assert [r.outcome for r in batch.results] == ["ok", "failed", "skipped", "skipped"]
    assert batch.results[1].error is not None
    assert batch.results[1].error["ename"] == "TransportError"
    assert batch.stopped.startswith(f"cannot reach {url} (profile staging): TransportError")
    assert batch.results[3].reason == f"Not run: {batch.stopped}."
    assert [r.cause for r in batch.results] == [0, 3, 3, 3]


def test_a_report_failing_on_its_own_does_not_stop_the_batch(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    config = tmp_path / "reports.toml"
    config.write_text(
        '[[run]]\nreport = "quick"\nlabel = "broken"\nparameters = { fail = true }\n\n'
        '[[run]]\nreport = "quick"\n'
    )
    batch = run_all(config, out_dir=tmp_path / "out", env=env)
    assert [r.outcome for r in batch.results] == ["failed", "ok"]
    assert batch.stopped == ""


def test_an_interactive_notebook_on_the_embedded_platform_shows_the_banner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from opslib.reports import notebook as nb

    shown: list[str] = []
    monkeypatch.setattr(nb, "_show_html", shown.append)
    client = nb.connect()  # nothing configured: connect() starts the embedded platform
    client.close()
    assert len(shown) == 1
    assert shown[0].startswith('<div class="opslib-demo" style="')
    assert DEMO_BANNER in shown[0]
    assert "Platform: the embedded demo platform (DEMO DATA). Account: " in shown[0]
