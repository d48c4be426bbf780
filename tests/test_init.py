"""The public namespace: a curated, sorted, complete ``__all__``."""

from __future__ import annotations

import subprocess
import sys
import types

import opslib


def test_all_is_sorted_and_unique() -> None:
    assert opslib.__all__ == sorted(set(opslib.__all__))


def test_all_is_complete() -> None:
    public = {
        name
        for name in dir(opslib)
        if not name.startswith("_") and not isinstance(getattr(opslib, name), types.ModuleType)
    }
    assert public == set(opslib.__all__)


def test_every_name_in_all_exists() -> None:
    for name in opslib.__all__:
        assert getattr(opslib, name) is not None


def test_every_error_is_an_ops_error() -> None:
    errors = [getattr(opslib, n) for n in opslib.__all__ if n.endswith(("Error", "Unknown"))]
    assert errors
    for cls in errors:
        assert issubclass(cls, opslib.OpsError)


def test_import_does_not_pull_in_the_server() -> None:
    code = "import sys, opslib; print(any(m.startswith('opslib.server') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _imported_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter holds after running ``code``."""
    code = f"import sys; {code}; print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_opslib_imports_no_pandas() -> None:
    # The `opslib` command imports the package first: a locked run refuses at once.
    assert not {"pandas", "numpy", "httpx"} & _imported_after("import opslib")


def test_a_public_name_imports_its_module_on_first_use() -> None:
    # httpx marks the client's modules (pandas comes with the first frame, not the client).
    assert "httpx" in _imported_after("import opslib; opslib.connect")
    assert "httpx" in _imported_after("from opslib import Client")
    assert "httpx" not in _imported_after("from opslib import OpsError, Dialect")
