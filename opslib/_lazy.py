"""A package's public names imported on first use (PEP 562), as scientific-python's
``lazy_loader.attach`` does: ``import opslib`` then imports no pandas.

>>> __getattr__, __dir__ = attach(__name__, {"connect": "opslib.client"})  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["attach"]


def attach(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: each name of ``homes`` is read
    from its module (``homes[name]``) when first used and kept in the package after."""
    module = sys.modules[package]

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(module), *homes})

    return __getattr__, __dir__
