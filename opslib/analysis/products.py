"""The products as desired state: read and validate a CSV, or write the platform's.

A desired-state file lists every product, one per row. Validation names every problem by
row and column; :mod:`opslib.analysis.product_plan` compares the valid file with the
platform's products. The platform never shows ``product_secret``, so a file without
secrets (as :func:`desired_state` writes it) plans nothing for products that exist.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import IO

import pandas as pd

from opslib import enums
from opslib._missing import is_missing
from opslib.csvcells import restore_frame
from opslib.csvfile import read_table

__all__ = [
    "COMPARED_FIELDS",
    "PRODUCT_COLUMNS",
    "SECRET_MASK",
    "ProductFileCheck",
    "desired_state",
    "read_product_file",
    "validate_product_file",
]

SECRET_MASK = "********"  # noqa: S105 - what a hidden secret looks like
_PRODUCT_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True)
class _Rule:
    """How one column of the desired-state file is read and checked."""

    required: bool = False
    kind: str = "str"  # str | int | enum
    enum: type[IntEnum] | None = None
    low: int | None = None
    high: int | None = None
    default: object = None
    pattern: re.Pattern[str] | None = None
    hint: str = ""


PRODUCT_COLUMNS: dict[str, _Rule] = {
    "product_id": _Rule(required=True, pattern=_PRODUCT_ID, hint="1..64 of A-Z a-z 0-9 _ . -"),
    "product_name": _Rule(required=True, low=1, high=128),
    "category_id": _Rule(required=True, kind="int", low=1),
    "net_type": _Rule(required=True, kind="enum", enum=enums.NetType),
    "node_type": _Rule(required=True, kind="enum", enum=enums.NodeType),
    "encrypt_type": _Rule(kind="enum", enum=enums.EncryptType, default=0),
    "status": _Rule(kind="enum", enum=enums.ProductStatus, default=0),
    "popular": _Rule(kind="enum", enum=enums.Popular, default=0),
    "vendor_type": _Rule(kind="int", low=0, high=99, default=0),
    "product_icon": _Rule(low=0, high=512, default=""),
    "product_secret": _Rule(low=8, high=128, default=""),
}
"""Every column a desired-state file may have, and how each is checked (protocol §4, §5)."""

COMPARED_FIELDS = (
    "product_name",
    "product_icon",
    "category_id",
    "vendor_type",
    "net_type",
    "encrypt_type",
    "node_type",
    "status",
    "popular",
)
"""The fields the plan compares; the platform never shows product_secret."""

_PROBLEM_COLUMNS = {
    "row": "Int64",
    "line": "Int64",
    "column": "string",
    "value": "string",
    "problem": "string",
}


@dataclass(frozen=True)
class ProductFileCheck:
    """The outcome of :func:`validate_product_file`.

    ``desired`` holds the rows without problems, typed; ``problems`` one row per problem
    (``row`` is the 1-based data row, ``line`` the file line with the header as line 1).
    """

    desired: pd.DataFrame
    problems: pd.DataFrame = field(default_factory=lambda: _problems([]))
    refused_ids: tuple[str, ...] = ()
    """The product ids (as written) of the rows with problems: a plan of the valid rows
    leaves these products alone."""

    @property
    def ok(self) -> bool:
        return self.problems.empty


def _problems(rows: list[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(_PROBLEM_COLUMNS))
    return frame.astype(_PROBLEM_COLUMNS)


def read_product_file(path: str | os.PathLike[str] | IO[str]) -> pd.DataFrame:
    """Read a desired-state CSV as text, exactly as written (no type guessing), the cells
    ``opslib products export`` neutralised for spreadsheets restored (:mod:`opslib.csvcells`:
    a leading ``'`` before ``=``, ``+``, ``-``, ``@``, a tab or a carriage return goes).

    Raises
    ------
    ValueError
        The file is empty, not UTF-8 text, separated by ``;``, names a column twice, or has
        a line whose fields do not match the header's (a cell with an unquoted comma):
        named, with the line, rather than read shifted into the wrong columns.

    Examples
    --------
    >>> raw = analysis.read_product_file("products.csv")  # doctest: +SKIP
    """
    required = ",".join(name for name, rule in PRODUCT_COLUMNS.items() if rule.required)
    header, rows = read_table(path, header_hint=required)
    return restore_frame(pd.DataFrame(rows, columns=header, dtype=object))


def _enum_value(text: str, labels: Mapping[int, str]) -> int | None:
    both = re.fullmatch(r"(\d+)\s+(\D.*)", text.strip())
    if both:  # "3 sub-device", as docs/protocol.md lists them: number and label must agree
        number, named = int(both.group(1)), _enum_value(both.group(2), labels)
        return number if named == number else None
    if re.fullmatch(r"[+-]?\d+", text):
        number = int(text)
        return number if number in labels else None
    wanted = _label_key(text)
    for value, label in labels.items():
        if _label_key(label) == wanted:
            return value
    return None


def _coded_labels(labels: Mapping[str, Mapping[int, str]] | None) -> dict[str, Mapping[int, str]]:
    """Each coded column's codes and labels: ``labels``' where given, else opslib's."""
    given = labels or {}
    return {
        name: given.get(name) or enums.labels(rule.enum)
        for name, rule in PRODUCT_COLUMNS.items()
        if rule.enum is not None
    }


def _label_key(text: str) -> str:
    """A label compared without case, spaces, dashes or underscores: ``sub-device``,
    ``sub device`` and ``SUB_DEVICE`` are one label, as are ``Wi-Fi`` and ``wifi``."""
    return re.sub(r"[\s_-]+", "", text.strip().lower())


def _check_cell(
    name: str, rule: _Rule, text: str, labels: Mapping[int, str]
) -> tuple[object, str | None]:
    """The typed value of one cell, or a problem sentence (``labels``: a coded column's)."""
    if text == "":
        if rule.required:
            return None, "required, but empty"
        return rule.default, None
    if rule.kind == "enum":
        value = _enum_value(text, labels)
        if value is None:
            allowed = ", ".join(f"{v} ({label})" for v, label in labels.items())
            return None, f"not one of {allowed}"
        return value, None
    if rule.kind == "int":
        if not re.fullmatch(r"[+-]?\d+", text):
            return None, "not an integer"
        number = int(text)
        if (rule.low is not None and number < rule.low) or (
            rule.high is not None and number > rule.high
        ):
            bounds = f"{rule.low}..{rule.high}" if rule.high is not None else f">= {rule.low}"
            return None, f"out of range, must be {bounds}"
        return number, None
    if rule.pattern is not None and not rule.pattern.fullmatch(text):
        return None, f"must be {rule.hint}"
    if (rule.low is not None and len(text) < rule.low) or (
        rule.high is not None and len(text) > rule.high
    ):
        return None, f"length {len(text)}, must be {rule.low}..{rule.high} characters"
    return text, None


def validate_product_file(
    raw: pd.DataFrame,
    categories: pd.DataFrame | None = None,
    labels: Mapping[str, Mapping[int, str]] | None = None,
) -> ProductFileCheck:
    """Check a desired-state file cell by cell; name every problem by row and column.

    Checks: known columns, required columns and values, integer types, enum ranges
    (numbers or labels such as ``Wi-Fi``), field lengths, unique product ids, and known
    categories when the category frame is given.

    Parameters
    ----------
    raw
        The file as text (:func:`read_product_file`).
    categories
        The platform's categories (``client.products.categories()``).
    labels
        The platform's codes and labels of the coded columns
        (``client.products.labels()``); default opslib's own.

    Returns
    -------
    ProductFileCheck
        ``desired`` (valid rows, typed) and ``problems``.

    Examples
    --------
    >>> raw = analysis.read_product_file(path)  # doctest: +SKIP
    >>> check = analysis.validate_product_file(raw, categories)  # doctest: +SKIP
    >>> check.problems  # doctest: +SKIP
    """
    coded = _coded_labels(labels)
    problems: list[dict[str, object]] = []
    columns = [str(c).strip() for c in raw.columns]
    raw = raw.set_axis(columns, axis=1)
    for name in columns:
        if name not in PRODUCT_COLUMNS:
            problems.append(
                {
                    "row": pd.NA,
                    "line": 1,
                    "column": name,
                    "value": name,
                    "problem": f"unknown column; allowed: {', '.join(PRODUCT_COLUMNS)}",
                }
            )
    for name, rule in PRODUCT_COLUMNS.items():
        if rule.required and name not in columns:
            problems.append(
                {
                    "row": pd.NA,
                    "line": 1,
                    "column": name,
                    "value": "",
                    "problem": "required column is missing",
                }
            )
    known = None
    if categories is not None and not categories.empty:
        known = {
            int(c): str(n)
            for c, n in zip(categories["category_id"], categories["category_name"], strict=True)
        }
    seen: dict[str, int] = {}
    records: list[dict[str, object]] = []
    refused: list[str] = []
    for position, (_, cells) in enumerate(raw.iterrows(), start=1):
        record: dict[str, object] = {}
        bad = False
        for name, rule in PRODUCT_COLUMNS.items():
            if name not in columns and not rule.required:
                record[name] = None  # left out: keep the platform's value
                continue
            text = str(cells.get(name, "") if name in columns else "").strip()
            value, problem = _check_cell(name, rule, text, coded.get(name, {}))
            if (
                problem is None
                and name == "category_id"
                and known is not None
                and value not in known
            ):
                listing = ", ".join(f"{k} ({v})" for k, v in sorted(known.items()))
                problem = f"unknown category; known: {listing}"
            if problem is None and name == "product_id":
                assert isinstance(value, str)
                if value in seen:
                    problem = f"duplicate product_id, first on row {seen[value]}"
                else:
                    seen[value] = position
            if problem is not None:
                bad = True
                shown = SECRET_MASK if name == "product_secret" and text else text
                problems.append(
                    {
                        "row": position,
                        "line": position + 1,
                        "column": name,
                        "value": shown,
                        "problem": problem,
                    }
                )
            record[name] = value
        if not bad:
            records.append(record)
        elif "product_id" in columns:
            refused.append(str(cells.get("product_id", "")).strip())
    desired = pd.DataFrame(records, columns=list(PRODUCT_COLUMNS))
    desired = desired.astype(
        {
            "product_id": "string",
            "product_name": "string",
            "category_id": "Int64",
            "net_type": "Int64",
            "node_type": "Int64",
            "encrypt_type": "Int64",
            "status": "Int64",
            "popular": "Int64",
            "vendor_type": "Int64",
            "product_icon": "string",
            "product_secret": "string",
        }
    )
    return ProductFileCheck(
        desired=desired.reset_index(drop=True),
        problems=_problems(problems),
        refused_ids=tuple(dict.fromkeys(r for r in refused if r)),
    )


def desired_state(
    products: pd.DataFrame, labels: Mapping[str, Mapping[int, str]] | None = None
) -> pd.DataFrame:
    """The platform's products as a desired-state file: every column as text, coded fields
    by their labels (the platform's, ``client.products.labels()``; default opslib's),
    ``product_secret`` empty (the platform never shows it).

    Validated and planned against the same products and labels, it plans nothing to change.

    Examples
    --------
    >>> rows = analysis.desired_state(client.products.list(), client.products.labels())
    ...  # doctest: +SKIP
    >>> rows.to_csv("products.csv", index=False)  # doctest: +SKIP
    """
    coded = _coded_labels(labels)
    columns: dict[str, pd.Series] = {}
    for name, rule in PRODUCT_COLUMNS.items():
        if name not in products.columns:
            values = pd.Series([""] * len(products), index=products.index)
        elif rule.kind == "enum":
            values = products[name].map(
                lambda v, known=coded[name]: "" if is_missing(v) else known.get(int(v), str(v))
            )
        else:
            values = products[name].map(lambda v: "" if is_missing(v) else str(v))
        columns[name] = values.astype("string")
    return pd.DataFrame(columns).reset_index(drop=True)
