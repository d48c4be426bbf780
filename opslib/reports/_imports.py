"""Faster start of the processes the report runner owns: its CLI, its worker, its kernels.

nbformat (imported by papermill, nbconvert and ``plotly.io``) imports jsonschema, which
loads at import every format checker it finds installed. One of them, rfc3987-syntax
(pulled in by jupyter-events' ``jsonschema[format-nongpl]``), compiles about 35 Lark
grammars when imported, seconds of CPU paid once in each of the three processes of a
report run (jsonschema issue #1428; docs/performance.md). Its only use is the "iri" and
"iri-reference" formats, which no notebook schema has. :func:`skip_iri_checker` makes
``import rfc3987_syntax`` fail fast in the current process (jsonschema then goes without
those two formats, as it does when the package is not installed); the runner calls it in
its own processes and, through ``PYTHONSTARTUP`` (which IPython runs when a kernel
starts), in the kernels it starts. Processes of the user (``import opslib``, a kernel
started by JupyterLab) are left alone. ``OPSLIB_KEEP_IRI_CHECKER=1`` turns it off.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["KERNEL_STARTUP", "kernel_env", "skip_iri_checker"]

KERNEL_STARTUP = Path(__file__).with_name("_kernel_startup.py")
_MODULE = "rfc3987_syntax"
KEEP_ENV = "OPSLIB_KEEP_IRI_CHECKER"


def skip_iri_checker() -> bool:
    """Make ``import rfc3987_syntax`` fail in this process unless it is already imported
    (or jsonschema is, which imported what it wanted). True when it was skipped."""
    if os.environ.get(KEEP_ENV) == "1" or "jsonschema" in sys.modules:
        return False
    if _MODULE in sys.modules:
        return sys.modules[_MODULE] is None
    sys.modules[_MODULE] = None  # type: ignore[assignment]  # the import system's "not found"
    return True


def kernel_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` with ``PYTHONSTARTUP`` naming the kernel start file, unless it names one."""
    if env.get(KEEP_ENV) != "1":
        env.setdefault("PYTHONSTARTUP", str(KERNEL_STARTUP))
    return env
