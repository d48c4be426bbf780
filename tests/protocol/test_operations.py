"""The operations table: the spec's 18, each declared once, and nothing else writes a path."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from opslib.dialects import Dialect
from opslib.protocol import operations as ops

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT.parent / "shared" / "spec" / "interface-spec.md"
PATH = re.compile(r"""['"]/(user|device|product|token)/[a-z_]+['"]""")


def test_the_table_holds_the_specs_18_in_order() -> None:
    paths = [op.path for op in ops.SPEC_OPERATIONS]
    assert len(paths) == len(set(paths)) == 18
    if SPEC.exists():  # the spec's part 4 headings, in order
        headings = re.findall(r"^### 4\.\d+ POST (\S+)$", SPEC.read_text(), re.M)
        assert paths == headings


def test_names_and_paths_find_each_operation() -> None:
    for op in ops.OPERATIONS:
        assert ops.named(op.name) is op
        assert ops.named(op.path) is op
        assert ops.named(op.path.lstrip("/")) is op  # "device/query", as joined to a base URL
        assert ops.by_path(op.path) is op
    with pytest.raises(KeyError, match="no operation"):
        ops.named("/device/nope")


def test_the_reference_dialect_requires_what_the_table_says() -> None:
    required = Dialect().required
    for op in ops.SPEC_OPERATIONS:
        if op.answer != "token":
            assert required[op.path] == op.required


def test_required_selectors_and_codes_are_parameters_of_the_operation() -> None:
    for op in ops.SPEC_OPERATIONS:
        assert set(op.required) <= set(op.params), op.name
        assert set(op.selectors) <= set(op.params), op.name
        assert set(op.window) <= set(op.params), op.name
        if op.paged is not None:
            assert op.list_key == op.paged.list_key
            assert {"page_no", "page_size"} <= set(op.params)


def test_no_module_outside_protocol_and_dialects_writes_an_operation_path() -> None:
    found = []
    for path in sorted((ROOT / "opslib").rglob("*.py")):
        relative = path.relative_to(ROOT / "opslib").parts
        if relative[0] in ("protocol", "dialects"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if PATH.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "module",
    ["operation", "operations", "times", "meanings", "errors", "codec", "serving", "tables"],
)
def test_the_protocol_modules_examples_hold(module: str) -> None:
    imported = __import__(f"opslib.protocol.{module}", fromlist=["_"])
    failures, tried = doctest.testmod(imported, optionflags=doctest.ELLIPSIS)
    assert tried
    assert not failures
