"""The embedded platform connect() starts when nothing is configured."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import opslib

if TYPE_CHECKING:
    pass


def test_embedded_platform_in_a_subprocess(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPSLIB_", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        OPSLIB_EMBEDDED_DB=str(tmp_path / "embedded" / "demo.db"),
        OPSLIB_EMBEDDED_SCALE="small",
    )
    code = "import opslib; print(opslib.connect().devices.list().shape)"
    for _ in range(2):  # the second run reuses the seeded database
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=240
        )
        assert out.returncode == 0, out.stderr
        rows, cols = ast.literal_eval(out.stdout.strip())
        assert rows > 0
        assert cols > 10
    assert (tmp_path / "embedded" / "demo.db").exists()
    assert not (home / ".cache" / "opslib" / "demo.db").exists()


def test_embedded_platform_is_shared_within_a_process() -> None:
    first = opslib.connect()
    second = opslib.connect()
    assert first.base_url == second.base_url
    assert first.base_url.startswith("http://127.0.0.1:")
    assert first.users.get()["phone"].item() == "5550000001"  # the demo ops account
