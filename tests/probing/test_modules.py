"""The probe's modules: their examples, the one seconds-vs-ms rule, and the house rules
(no operation path written here, no branch on a dialect's name, none over 500 lines)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from opslib.probing.times import kind
from opslib.timeutil import SECONDS_LIMIT

ROOT = Path(__file__).resolve().parents[2] / "opslib"
MODULES = sorted(p.stem for p in (ROOT / "probing").glob("*.py") if p.stem != "__init__")
PATH_LITERAL = re.compile(r"""['"]/(user|device|product|token)/[a-z_]+['"]""")
NAME_BRANCH = re.compile(r"""(==|!=) ?['"](chint|vendor[-a-z]*|opslib)['"]""")


@pytest.mark.parametrize("module", MODULES)
def test_the_probing_modules_examples_hold(module: str) -> None:
    imported = __import__(f"opslib.probing.{module}", fromlist=["_"])
    failures, _ = doctest.testmod(imported, optionflags=doctest.ELLIPSIS)
    assert not failures


@pytest.mark.parametrize(
    "path",
    [*sorted((ROOT / "probing").glob("*.py")), ROOT / "server" / "simulate.py"],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_the_probe_and_the_simulator_write_no_path_and_ask_the_dialect(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert not PATH_LITERAL.search(text), PATH_LITERAL.search(text)
    assert not NAME_BRANCH.search(text), NAME_BRANCH.search(text)
    assert len(text.splitlines()) <= 500


def test_a_gmt_number_is_seconds_below_the_one_limit_and_ms_from_it() -> None:
    # a 12-digit value is milliseconds (1973 and later), as every reader of opslib takes it
    assert kind(SECONDS_LIMIT) == kind(str(SECONDS_LIMIT)) is None  # ms of 1973: no moment
    assert kind(1_714_521_600_000) == kind("1714521600000") == "epoch_ms"
    assert kind(1_714_521_600) == kind(1_714_521_600.5) == "epoch_s"
    assert kind(SECONDS_LIMIT - 1) == "epoch_s"  # seconds of year 5138: still a moment
    assert kind(0) is kind(True) is kind(12) is kind("soon") is None
    assert kind("2024-05-01T08:00:00Z") == kind("2024-05-01T08:00:00") == "iso"
    assert kind("2024-05-01 08:00:00") == "datetime"
