"""``environment.yml`` mirrors pyproject: every dependency, and those of the extras that
``make`` installs, is there under the same name, with the same bounds where both give one,
and nothing else is (but pip)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def _make_extras() -> list[str]:
    """The extras of the Makefile's ``pip install -e '.[...]'``."""
    found = re.search(r"pip install .*-e '\.\[([^\]]*)\]'", (ROOT / "Makefile").read_text())
    assert found, "the Makefile installs opslib with no extras"
    return [extra.strip() for extra in found.group(1).split(",")]


def _pyproject() -> tuple[dict[str, Requirement], str]:
    """Requirements by canonical name (dependencies, then make's extras); requires-python."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in _make_extras():
        lines += project["optional-dependencies"][extra]
    wanted = {}
    for line in lines:
        req = Requirement(line)
        wanted[canonicalize_name(req.name)] = req
    return wanted, project["requires-python"]


def _environment(text: str) -> tuple[dict[str, Requirement], str | None]:
    """The requirements an environment file installs by canonical name (conda's and pip's;
    a pip option such as ``-e .`` is not one); python's bound."""
    given: dict[str, Requirement] = {}
    python = None
    for item in yaml.safe_load(text)["dependencies"]:
        lines = item["pip"] if isinstance(item, dict) else [item]
        for line in lines:
            if line.startswith("-"):
                continue
            try:
                req = Requirement(line)
            except InvalidRequirement:  # conda's ``name=1.2`` form: the name alone
                req = Requirement(re.split(r"[=<>!~ ]", line, maxsplit=1)[0])
            if canonicalize_name(req.name) == "python":
                python = str(req.specifier)
            else:
                given[canonicalize_name(req.name)] = req
    return given, python


def _differences(text: str) -> list[str]:
    wanted, requires_python = _pyproject()
    given, python = _environment(text)
    problems = []
    if python is None:
        problems.append("python: missing from environment.yml")
    elif python and python != requires_python:
        problems.append(f"python: pyproject requires {requires_python}, environment.yml {python}")
    for name, req in wanted.items():
        mine = given.get(name)
        if mine is None:
            problems.append(f"{req}: missing from environment.yml")
            continue
        if req.extras != mine.extras:
            problems.append(f"{name}: extras {sorted(req.extras)} in pyproject, {mine}")
        if req.specifier and mine.specifier and req.specifier != mine.specifier:
            problems.append(f"{name}: {req.specifier} in pyproject, {mine.specifier}")
    extra = sorted(set(given) - set(wanted) - {"pip"})
    problems += [f"{given[name]}: in environment.yml, not in pyproject" for name in extra]
    return problems


def test_environment_yml_mirrors_pyproject() -> None:
    assert _differences((ROOT / "environment.yml").read_text()) == []


def test_the_mirror_check_sees_a_missing_dependency_and_another_bound() -> None:
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^\s+- pandas>=2\.2$", text, flags=re.MULTILINE)
    assert re.search(r"^\s+- aiosmtpd>=1\.4", text, flags=re.MULTILINE)
    text = re.sub(r"(?m)^\s+- aiosmtpd.*\n", "", text).replace("pandas>=2.2", "pandas>=2.1")
    text += "      - requests>=2\n"
    assert _differences(text) == [
        "pandas: >=2.2 in pyproject, >=2.1",
        "aiosmtpd>=1.4: missing from environment.yml",
        "requests>=2: in environment.yml, not in pyproject",
    ]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("uvicorn>=0.30", "uvicorn: extras ['standard'] in pyproject, uvicorn>=0.30"),
        ("python>=3.10", "python: pyproject requires >=3.11, environment.yml >=3.10"),
    ],
)
def test_the_mirror_check_sees_lost_extras_and_another_python(line: str, problem: str) -> None:
    text = (ROOT / "environment.yml").read_text()
    name = line.partition(">")[0]
    text = re.sub(rf"(?m)^(\s+- ){re.escape(name)}(\[[^\]]*\])?>=.*$", rf"\g<1>{line}", text)
    assert _differences(text) == [problem]
