"""Fixtures of the report tests: tiny notebooks for the runner, and the shared platform's
environment. Runs of the real reports: ``report_run`` and ``report_runs`` (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

from .runs import platform_env

KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
TINY_PARAMETERS = """\
n: int = 3  # how many bars
fail: bool = False  # raise an error in the middle
sleep_s: float = 0.0  # seconds to sleep in the middle
tags: list[str] = []  # some words
interactive: bool = True  # widgets or not
output_dir: str = ""  # where the export goes"""


def write_tiny_notebook(path: Path) -> Path:
    """A notebook of the reports' shape: parameters, setup, a figure, a failure point, an export."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    params = nbformat.v4.new_code_cell(TINY_PARAMETERS)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Tiny report"),
        params,
        nbformat.v4.new_code_cell(
            "import plotly.graph_objects as go\n"
            "from opslib.reports import notebook as nb\n"
            "nb.setup(interactive=interactive)"
        ),
        nbformat.v4.new_code_cell("go.Figure(go.Bar(x=list(range(n)), y=list(range(n))))"),
        nbformat.v4.new_code_cell(
            "import time\ntime.sleep(sleep_s)\nif fail:\n    raise RuntimeError('asked to fail')"
        ),
        nbformat.v4.new_code_cell(
            "import pandas as pd\n"
            "nb.export_frame(pd.DataFrame({'tag': tags, 'n': [n] * len(tags)}), output_dir, 'tags')"
        ),
        nbformat.v4.new_code_cell(  # what the runner's kernel was started with
            "import os, sys\n"
            "print('planted:', [name for name, module in sys.modules.items() if module is None])\n"
            "print('startup file:', os.environ.get('PYTHONSTARTUP', ''))"
        ),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def write_window_notebook(path: Path) -> Path:
    """A quick notebook whose parameters declare meanings (metadata ``opslib``): a window,
    an event type list, a bucket, an input file and a role-gated flag; it prints them."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["opslib"] = {
        "kinds": {
            "start": "time", "end": "time", "event_types": "event_types", "freq": "freq",
            "source": "input_file", "days": "positive",
        },
        "window": ["start", "end"],
        "needs_role": {"write": "admin"},
    }  # fmt: skip
    params = nbformat.v4.new_code_cell(
        'start: str = "-7d"  # from\n'
        'end: str = "now"  # to\n'
        "event_types: list[str] = []  # which\n"
        'freq: str = "1h"  # bucket\n'
        'source: str = ""  # a file to read\n'
        "days: int = 1  # how many\n"
        "write: bool = False  # needs admin"
    )
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Window"),
        params,
        nbformat.v4.new_code_cell(
            "print('start:', start, 'end:', end, 'freq:', freq)\n"
            "print('source text:', open(source).read() if source else '')"
        ),
    ]
    nbformat.write(nb, path)
    return path


def write_quick_notebook(path: Path) -> Path:
    """A notebook without heavy imports (a run takes a second or two): sleeps, may fail."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    params = nbformat.v4.new_code_cell(
        "sleep_s: float = 0.0  # seconds to sleep\nfail: bool = False  # raise an error"
    )
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Quick"),
        params,
        nbformat.v4.new_markdown_cell("## Waiting\n\nSleeps `sleep_s` seconds."),
        nbformat.v4.new_code_cell("import time\n\ntime.sleep(sleep_s)"),
        nbformat.v4.new_markdown_cell("## The failure point"),
        nbformat.v4.new_code_cell("if fail:\n    raise ValueError('quick failure')"),
    ]
    nbformat.write(nb, path)
    return path


def write_outcome_notebook(path: Path) -> Path:
    """A notebook that connects like the reports and declares its own outcome when asked."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    params = nbformat.v4.new_code_cell(
        'declare: str = ""  # partial or failed\nrows: int = 3  # rows of the main read\n'
        "faults_only: bool = False  # a platform whose only event kinds are property and fault"
    )
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Outcome"),
        params,
        nbformat.v4.new_code_cell(
            "import pandas as pd\nfrom opslib.reports import notebook as nb\n\n"
            "nb.setup(interactive=False)\nclient = nb.connect()"
        ),
        nbformat.v4.new_markdown_cell("## The main read"),
        nbformat.v4.new_code_cell(
            "frame = nb.require_rows(pd.DataFrame({'a': range(rows)}), 'rows of the test')"
        ),
        nbformat.v4.new_markdown_cell("## The writes"),
        nbformat.v4.new_code_cell(
            "if declare:\n    nb.declare_outcome(declare, '2 of 5 writes failed')"
        ),
        nbformat.v4.new_markdown_cell("## Downtime"),
        nbformat.v4.new_code_cell(
            "kinds = {'kinds': {0: 'property', 1: 'fault'}} if faults_only else None\n"
            "if nb.needs_kinds(None, 'outages', kinds=kinds):\n    print('downtime shown')"
        ),
    ]
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A notebook directory holding tiny.ipynb and quick.ipynb (for OPSLIB_NOTEBOOKS)."""
    directory = tmp_path_factory.mktemp("notebooks")
    write_tiny_notebook(directory / "tiny.ipynb")
    write_quick_notebook(directory / "quick.ipynb")
    write_window_notebook(directory / "window.ipynb")
    write_outcome_notebook(directory / "outcome.ipynb")
    return directory


@pytest.fixture
def tiny(tiny_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPSLIB_NOTEBOOKS", str(tiny_dir))
    return tiny_dir / "tiny.ipynb"


@pytest.fixture
def env(platform: Any) -> dict[str, str]:
    """The environment that points a run at the shared test platform (its ops account)."""
    return platform_env(platform)
