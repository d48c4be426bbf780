"""The one place that knows the interface: its operations, and how a platform's dialect
writes and reads them.

- :mod:`~opslib.protocol.operations`: the table of operations (path, safety, role, answer
  shape, list and paging, moments, selectors, coded fields, required parameters).
- :mod:`~opslib.protocol.times`: moments and times of day on the wire, by a dialect.
- :mod:`~opslib.protocol.codec`: a :class:`~opslib.protocol.codec.Codec` built from a
  :class:`~opslib.dialects.Dialect`; the client encodes requests and decodes answers with
  it, the server decodes requests and encodes answers.
- :mod:`~opslib.protocol.reads`: the read invariant every paged read is checked against.

The client, the server's edge, the probe and the simulator all go through here; no other
module writes an operation's path.
"""

import typing

from opslib._lazy import attach as _attach

if typing.TYPE_CHECKING:
    from opslib.protocol.codec import Codec

__all__ = ["Codec"]

# Imported on first use: opslib.dialects reads the operations table for its defaults, and
# the codec reads opslib.dialects.
_HOME = {"Codec": "opslib.protocol.codec"}

if not typing.TYPE_CHECKING:
    __getattr__, __dir__ = _attach(__name__, _HOME)
