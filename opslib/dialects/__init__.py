"""Platform dialects: one declarative object per platform, read top to bottom.

A :class:`Dialect` holds every point the interface spec leaves open, each defaulting to
the reference platform's choice. Built in: ``"opslib"`` (ours), ``"vendor"`` (a platform
that decides the open points differently; also ``"vendor-local"`` and ``"vendor-epoch"``),
``"chint"`` (the CHINT smart cloud, whose public API our interface is).
This package is data, a bottom layer: it imports nothing of the client, the server or the
reports. :mod:`opslib.protocol` writes and reads the wire by a dialect;
:mod:`opslib.protocol.tables` reads one from a profile's TOML table.

>>> from opslib.dialects import Dialect
>>> Dialect.names()
('chint', 'opslib', 'vendor', 'vendor-epoch', 'vendor-local')
"""

from __future__ import annotations

from opslib.dialects.base import Dialect
from opslib.dialects.chint import chint_dialect
from opslib.dialects.reference import opslib_dialect
from opslib.dialects.sections import (
    Capabilities,
    Errors,
    Paging,
    Serving,
    Times,
    TokenCall,
    zone_of,
)
from opslib.dialects.vendor import vendor_dialect, vendor_epoch_dialect, vendor_local_dialect

__all__ = [
    "Capabilities",
    "Dialect",
    "Errors",
    "Paging",
    "Serving",
    "Times",
    "TokenCall",
    "zone_of",
]

Dialect.register("chint", chint_dialect)
Dialect.register("opslib", opslib_dialect)
Dialect.register("vendor", vendor_dialect)
Dialect.register("vendor-local", vendor_local_dialect)
Dialect.register("vendor-epoch", vendor_epoch_dialect)
