"""JupyterLab for the browser tests: one server on a free loopback port, no token.

``running_lab(directory, notebooks, env)`` copies the notebooks into ``directory/root``,
keeps JupyterLab's config, data, runtime, settings and workspaces under ``directory``,
yields the base URL once ``/api/status`` answers, and stops the server and every process
it started (its kernels too) on exit.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest

from opslib.reports._process import descendants

START_TIMEOUT = 90  # seconds for JupyterLab to answer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _settings(directory: Path) -> None:
    """Render every cell (no windowing: off-screen plots would not draw) and fetch no news."""
    files = {
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
    }
    for name, content in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content))


def _stop(proc: subprocess.Popen[bytes]) -> None:
    tree = descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)  # the server shuts its kernels down
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    for pid in tree:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def running_lab(
    directory: Path, notebooks: Iterable[Path], env: Mapping[str, str]
) -> Iterator[str]:
    """JupyterLab over copies of ``notebooks``, with ``env`` added to its environment."""
    root = directory / "root"
    root.mkdir()
    for notebook in notebooks:
        shutil.copy(notebook, root / notebook.name)
    _settings(directory / "lab-settings")
    port = _free_port()
    full_env = {
        **os.environ,
        **env,
        "JUPYTER_CONFIG_DIR": str(directory / "jupyter-config"),
        "JUPYTER_DATA_DIR": str(directory / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(directory / "jupyter-runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(directory / "lab-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(directory / "lab-workspaces"),
    }
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
        f"--port={port}", "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
        "--IdentityProvider.token=", "--ServerApp.password=",
        f"--ServerApp.root_dir={root}", "--ServerApp.disable_check_xsrf=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    log = directory / "jupyterlab.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, env=full_env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:]
                pytest.fail(f"JupyterLab did not start within {START_TIMEOUT} s:\n{tail}")
            time.sleep(0.5)
        yield base
    finally:
        _stop(proc)
    assert proc.poll() is not None
