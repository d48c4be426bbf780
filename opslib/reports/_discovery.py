"""Where the report notebooks are found.

In this order: the directory named by ``OPSLIB_NOTEBOOKS``; the ``notebooks/`` directory of
the source checkout opslib runs from (``make lab`` and ``make demo`` use it); the
``opslib/notebooks/`` package data of an installed wheel. The first directory holding a
notebook of a given name wins.
"""

from __future__ import annotations

import os
from pathlib import Path

from opslib.reports._names import report_name

__all__ = ["ReportNotFound", "find_notebook", "notebook_dirs", "report_names"]

_PACKAGE = Path(__file__).resolve().parents[1]


class ReportNotFound(LookupError):
    """No notebook of that name in any notebook directory."""


def notebook_dirs() -> list[Path]:
    """The directories searched for report notebooks, first match wins.

    Examples
    --------
    >>> from opslib.reports import notebook_dirs
    >>> notebook_dirs()[-1].name
    'notebooks'
    """
    dirs = []
    explicit = os.environ.get("OPSLIB_NOTEBOOKS")
    if explicit:
        dirs.append(Path(explicit).expanduser().resolve())
    dirs.append(_PACKAGE.parent / "notebooks")  # a source checkout
    dirs.append(_PACKAGE / "notebooks")  # package data of an installed wheel
    return dirs


def report_names() -> dict[str, Path]:
    """Every report: name (the notebook's file name without ``.ipynb``) → notebook path."""
    found: dict[str, Path] = {}
    for directory in notebook_dirs():
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.ipynb")):
            found.setdefault(path.stem, path)
    return dict(sorted(found.items()))


def find_notebook(name: str | os.PathLike[str]) -> Path:
    """The notebook of a report name (``fleet_inventory``), or a path to a notebook.

    Raises
    ------
    ReportNotFound
        Naming the reports that exist and where they were looked for.
    """
    text = os.fspath(name)
    candidate = Path(text).expanduser()
    if candidate.suffix == ".ipynb" and candidate.is_file():
        return candidate.resolve()
    names = report_names()
    stem = report_name(candidate)
    if stem in names:
        return names[stem]
    from opslib.reports._suggest import did_you_mean

    known = ", ".join(names) or "none"
    where = ", ".join(str(d) for d in notebook_dirs())
    raise ReportNotFound(
        f"no report named {text!r}{did_you_mean(stem, names)}; reports: {known} (looked in {where})"
    )
