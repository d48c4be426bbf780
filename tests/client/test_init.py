"""The client's surface: ``opslib.client`` exports a curated, sorted ``__all__``, and
``opslib`` re-exports the client's public names from it."""

from __future__ import annotations

import subprocess
import sys
import types

import opslib
import opslib.client


def test_all_is_sorted_unique_and_public() -> None:
    names = opslib.client.__all__
    assert names == sorted(set(names))
    assert not [n for n in names if n.startswith("_")]


def test_all_is_complete() -> None:
    public = {
        name
        for name in dir(opslib.client)
        if not name.startswith("_")
        and not isinstance(getattr(opslib.client, name), types.ModuleType)
    }
    assert public == set(opslib.client.__all__)


def test_opslib_re_exports_the_same_objects() -> None:
    for name in ("Client", "Secret", "connect"):
        assert getattr(opslib, name) is getattr(opslib.client, name)


def test_reading_the_settings_imports_no_pandas() -> None:
    # `opslib report run` reads the config file before a report's lock: no pandas yet.
    code = (
        "import sys; from opslib.client import config_path, resolve_settings; "
        "print(sorted({'pandas', 'numpy', 'httpx'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
