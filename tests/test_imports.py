"""The import graph of opslib, read from the source with ``ast``: no circles, and nothing
outside the client reaching into its private modules.

Every import statement counts: at module level, inside functions (imported when first
called) and under ``if TYPE_CHECKING:`` (read by type checkers and readers). The parent
packages a module's import runs first are not counted: ``opslib/__init__`` re-exporting the
client would otherwise make every module of the client a circle of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "opslib"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(folder: Path) -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(folder.rglob("*.py"))}


MODULES = _modules(PACKAGE)


def _imported(path: Path, module: str) -> Iterator[tuple[str, int]]:
    """The modules ``path`` names in its import statements (absolute names), with lines.

    ``from a import b`` names the module ``a.b`` when there is one, else ``a`` (b is one of
    its names).
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in MODULES else base), node.lineno


def _graph(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {module of opslib it imports: the line of the first such import}."""
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        edges: dict[str, int] = {}
        for target, line in _imported(path, name):
            if target in modules and target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One circle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _describe(component: list[str], graph: dict[str, dict[str, int]]) -> str:
    members = set(component)
    lines = [
        f"  {source} -> {target} (line {line})"
        for source in component
        for target, line in graph[source].items()
        if target in members
    ]
    return "\n".join([", ".join(component), *lines])


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import opslib.client._http\n"
        "def later():\n"
        "    from opslib.client import _tokens\n"
        "if TYPE_CHECKING:\n"
        "    from opslib.client._session import Session\n"
        "from opslib.client import Client\n"
    )
    found = {target for target, _ in _imported(source, "opslib.sample")}
    assert {
        "opslib.client._http",  # at module level
        "opslib.client._tokens",  # inside a function
        "opslib.client._session",  # under TYPE_CHECKING
        "opslib.client",  # a name of a package: its __init__
    } <= found


def test_no_import_circles_in_opslib() -> None:
    graph = _graph(MODULES)
    circles = _cycles(graph)
    assert not circles, "import circles:\n" + "\n".join(_describe(c, graph) for c in circles)


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _private_client_imports(path: Path) -> list[str]:
    bad = []
    for target, line in _imported(path, _module_name(path)):
        parts = target.split(".")
        if parts[:2] == ["opslib", "client"] and any(p.startswith("_") for p in parts[2:]):
            bad.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    return sorted(set(bad))


OUTSIDE = sorted(
    [p for name, p in MODULES.items() if not name.startswith("opslib.client")]
    + list((ROOT / "benchmarks").rglob("*.py"))
)


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_outside_the_client_imports_its_private_modules(path: Path) -> None:
    assert _private_client_imports(path) == []


def test_the_private_import_check_sees_one() -> None:
    client = PACKAGE / "client" / "_client.py"
    assert _private_client_imports(client)  # the client itself does, and it may
