"""``make test`` gets Debian's chromium first (.ci/ensure-chromium): installs it as root,
else stops with the command to run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / ".ci" / "ensure-chromium"
MAKEFILE = Path(__file__).parents[2] / "Makefile"


def run(
    env: dict[str, str], *, as_nobody: bool = False, script: Path = SCRIPT
) -> subprocess.CompletedProcess[str]:
    command = ["bash", str(script)]
    if as_nobody and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) runs the script as an unprivileged user"
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    return subprocess.run(
        command, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )


def fake_apt_get(tmp_path: Path, chromium: Path) -> tuple[Path, Path]:
    """An apt-get that records its arguments and "installs" chromium at ``chromium``."""
    log = tmp_path / "apt.log"
    script = tmp_path / "apt-get"
    script.write_text(
        f'#!/bin/sh\necho "$@" >> {log}\n'
        f'case "$1" in install) printf "#!/bin/sh\\n" > {chromium}; chmod +x {chromium};; esac\n'
    )
    script.chmod(0o755)
    return script, log


def test_make_test_gets_chromium_before_the_tests() -> None:
    text = MAKEFILE.read_text()
    assert "test: $(STAMP) chromium style" in text
    assert "\tbash .ci/ensure-chromium" in text


def test_a_browser_that_is_there_is_left_alone(tmp_path: Path) -> None:
    done = run({"CHROMIUM": sys.executable, "APT_GET": str(tmp_path / "never-called")})
    assert done.returncode == 0
    assert done.stdout == done.stderr == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="installing needs root")
def test_a_missing_browser_is_installed_as_root(tmp_path: Path) -> None:
    chromium = tmp_path / "chromium"
    apt_get, log = fake_apt_get(tmp_path, chromium)
    done = run({"CHROMIUM": str(chromium), "APT_GET": str(apt_get)})
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == ["update -qq", "install -y -qq chromium"]
    assert os.access(chromium, os.X_OK)


def test_without_root_it_stops_with_the_command_to_run() -> None:
    shared = Path(tempfile.mkdtemp(prefix="opslib-apt-"))  # where an unprivileged user looks
    shared.chmod(0o755)
    chromium = shared / "chromium"
    apt_get, log = fake_apt_get(shared, chromium)
    # The checkout may sit where that user cannot read (a clone under /root, mode 0700):
    # the user runs a copy of the script from the shared folder.
    script = shared / SCRIPT.name
    shutil.copy(SCRIPT, script)
    script.chmod(0o755)
    try:
        done = run(
            {"CHROMIUM": str(chromium), "APT_GET": str(apt_get)}, as_nobody=True, script=script
        )
        assert not log.exists()  # apt-get was never called
        assert not chromium.exists()
    finally:
        shutil.rmtree(shared)
    assert done.returncode == 1
    assert done.stderr == (
        f"make test: {chromium} is missing; run as root: "
        "apt-get update && apt-get install -y chromium\n"
    )
    assert not done.stdout
