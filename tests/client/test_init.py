"""The client's surface: ``opslib.client`` exports a curated, sorted ``__all__``, and
``opslib`` re-exports the client's public names from it."""

from __future__ import annotations

import types

import opslib
import opslib.client


def test_all_is_sorted_unique_and_public() -> None:
    names = opslib.client.__all__
    assert names == sorted(set(names))
    assert not [n for n in names if n.startswith("_")]


def test_all_is_complete() -> None:
    public = {
        name
        for name, value in vars(opslib.client).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(opslib.client.__all__)


def test_opslib_re_exports_the_same_objects() -> None:
    for name in ("Client", "Secret", "connect"):
        assert getattr(opslib, name) is getattr(opslib.client, name)
