"""A notebook's parameters (papermill's inspection of its ``parameters`` cell) and the
checking and coercion of values given on the command line or in ``reports.toml``.

A parameter is declared in the notebook as ``name: type = literal  # help``. The types
understood are ``str``, ``int``, ``float``, ``bool``, ``list[str]``, ``list[int]``; a value is
coerced to its parameter's type or refused with an error naming the parameter.
"""

from __future__ import annotations

import ast
import io
import json
import os
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ParameterError",
    "ReportParameter",
    "UnknownParameterError",
    "coerce_value",
    "inspect_report",
    "validate_parameters",
]

_TRUE = {"true", "yes", "y", "on", "1"}
_FALSE = {"false", "no", "n", "off", "0"}


class ParameterError(ValueError):
    """A parameter value cannot be read as the parameter's type."""


class UnknownParameterError(ParameterError):
    """A parameter name the notebook does not declare."""


@dataclass(frozen=True)
class ReportParameter:
    """One declared parameter: name, type annotation, default (a Python value) and help."""

    name: str
    type: str
    default: Any
    help: str

    def describe(self) -> str:
        """``name: type = default  help`` on one line."""
        text = f"{self.name}: {self.type} = {self.default!r}"
        return f"{text}  # {self.help}" if self.help else text


def inspect_report(path: str | os.PathLike[str]) -> dict[str, ReportParameter]:
    """The parameters of a notebook, in declaration order, read from its ``parameters`` cell.

    The cell is parsed here (``name: type = literal  # help`` a line), with no kernel,
    papermill or pandas: a refusal or ``opslib report list`` stays well under a second.

    Raises
    ------
    ParameterError
        The notebook cannot be read, or its ``parameters`` cell is not Python.

    Examples
    --------
    >>> from opslib.reports import find_notebook, inspect_report
    >>> inspect_report(find_notebook("fleet_inventory"))["silent_days"].type  # doctest: +SKIP
    'int'
    """
    source = parameters_source(path)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        where = os.fspath(path)
        raise ParameterError(f"{where}: the parameters cell is not Python: {exc}") from None
    comments = _comments(source)
    params: dict[str, ReportParameter] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, annotation = node.target.id, ast.unparse(node.annotation).replace(" ", "")
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name):
                continue
            name, annotation = target.id, "None"
        else:
            continue
        raw = ast.get_source_segment(source, node.value) if node.value is not None else ""
        try:
            default = ast.literal_eval(raw or "None")
        except (ValueError, SyntaxError):
            default = raw
        help_text = comments.get(node.end_lineno or node.lineno, "")
        params[name] = ReportParameter(name, annotation, default, help_text)
    return params


def parameters_source(path: str | os.PathLike[str]) -> str:
    """The source of the notebook's cell tagged ``parameters`` ("" when it has none)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ParameterError(f"cannot read the notebook {os.fspath(path)}: {exc}") from None
    for cell in doc.get("cells", []):
        if "parameters" in (cell.get("metadata") or {}).get("tags", []):
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else str(source)
    return ""


def _comments(source: str) -> dict[int, str]:
    """Each line's trailing comment, without the ``#``."""
    found: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string.lstrip("#").strip()
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _as_list(name: str, value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                raise ParameterError(
                    f'parameter {name!r}: {value!r} is not a JSON list; give e.g. ["a", "b"] or a,b'
                ) from None
            if not isinstance(parsed, list):
                raise ParameterError(f"parameter {name!r}: expected a list, got {value!r}")
            return parsed
        return [part.strip() for part in text.split(",") if part.strip()]
    raise ParameterError(f"parameter {name!r} expects a list, got {type(value).__name__} {value!r}")


def coerce_value(param: ReportParameter, value: Any) -> Any:
    """``value`` as the parameter's type; strings are parsed (``"7"``, ``"true"``, ``"a,b"``).

    Raises
    ------
    ParameterError
        Naming the parameter, its type and the value.

    Examples
    --------
    >>> p = ReportParameter("silent_days", "int", 7, "")
    >>> coerce_value(p, "14")
    14
    >>> coerce_value(ReportParameter("apply", "bool", False, ""), "yes")
    True
    """
    kind, name = param.type, param.name

    def fail(expected: str) -> ParameterError:
        return ParameterError(
            f"parameter {name!r} expects {expected}, got {type(value).__name__} {value!r}"
        )

    if kind == "str":
        if isinstance(value, str):
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail("a string")
        return str(value)
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise fail("a bool (true/false, yes/no, 1/0)")
    if kind == "int":
        if isinstance(value, bool):
            raise fail("an integer")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                raise fail("an integer") from None
        raise fail("an integer")
    if kind == "float":
        if isinstance(value, bool):
            raise fail("a number")
        if isinstance(value, int | float):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                raise fail("a number") from None
        raise fail("a number")
    if kind in ("list[str]", "list"):
        return [
            coerce_value(ReportParameter(name, "str", None, ""), v) for v in _as_list(name, value)
        ]
    if kind == "list[int]":
        items = _as_list(name, value)
        return [coerce_value(ReportParameter(name, "int", None, ""), v) for v in items]
    return value  # an annotation this runner does not know: passed on as given


def validate_parameters(
    declared: Mapping[str, ReportParameter], given: Mapping[str, Any]
) -> dict[str, Any]:
    """Check every given name is declared and coerce every value; nothing is run.

    Returns
    -------
    dict
        The given parameters, coerced (defaults are left to the notebook).

    Raises
    ------
    UnknownParameterError
        For a name the notebook does not declare, listing the valid ones.
    ParameterError
        For a value of the wrong type, naming the parameter.
    """
    unknown = [n for n in given if n not in declared]
    if unknown:
        from opslib.reports._suggest import did_you_mean

        valid = ", ".join(declared) or "none"
        names = ", ".join(f"{n!r}{did_you_mean(n, declared)}" for n in unknown)
        raise UnknownParameterError(f"unknown parameter {names}; valid parameters: {valid}")
    return {name: coerce_value(declared[name], value) for name, value in given.items()}
