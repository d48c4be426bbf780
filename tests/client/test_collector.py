"""The collector opt-in: thresholds changed only inside the block the user asked for."""

from __future__ import annotations

import gc

import pytest

import opslib


def test_the_threshold_holds_inside_the_block_and_comes_back_after() -> None:
    before = gc.get_threshold()
    with opslib.gc_threshold(12_345):
        assert gc.get_threshold() == (12_345, *before[1:])
        assert gc.isenabled()
    assert gc.get_threshold() == before


def _fail_inside() -> None:
    with opslib.gc_threshold():
        assert gc.get_threshold()[0] == 10_000
        raise RuntimeError("inside")


def test_the_threshold_comes_back_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError, match="inside"):
        _fail_inside()
    assert gc.get_threshold() == before


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "10000"])
def test_a_bad_threshold_names_what_is_allowed(bad: object) -> None:
    with pytest.raises(ValueError, match="threshold must be a positive int"):
        opslib.gc_threshold(bad).__enter__()  # type: ignore[arg-type]
