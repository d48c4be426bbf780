"""The reference platform's dialect, ``"opslib"``: every default of :class:`Dialect`.

Each choice is recorded in ``docs/protocol.md``; ``provenance`` says where.

>>> from opslib.dialects.reference import opslib_dialect
>>> opslib_dialect().errors.signalling
'status'
"""

from __future__ import annotations

from opslib.dialects.base import Dialect

__all__ = ["opslib_dialect"]

_PROTOCOL = "documented: docs/protocol.md"

PROVENANCE = {
    "token.params": f"{_PROTOCOL} §6.2 (query parameters, a form body also accepted)",
    "token.user_id_field": f"{_PROTOCOL} §6.3 (data.user_id; openid equals it)",
    "token.expires_in_unit": f"{_PROTOCOL} §1 (seconds)",
    "errors.signalling": f"{_PROTOCOL} §2, §3 (HTTP status = error_code)",
    "errors.message_fields": f"{_PROTOCOL} §2 (error_msg; error_description on the token op)",
    "errors.codes": f"{_PROTOCOL} §3",
    "errors.token_expired_codes": f"{_PROTOCOL} §3 (401)",
    "errors.write_success": f'{_PROTOCOL} §2 (add: the product_id, delete: "success")',
    "times.gmt_format": f"{_PROTOCOL} §9 (YYYY-MM-DD HH:MM:SS)",
    "times.zone": f"{_PROTOCOL} §9 (UTC)",
    "times.range_unit": f"{_PROTOCOL} §1 (epoch milliseconds)",
    "paging.max_page_size": f"{_PROTOCOL} §9 (1..1000)",
    "paging.total": f"{_PROTOCOL} §9 (the whole result's records)",
    "selectors": f"{_PROTOCOL} §4",
    "enums": f"{_PROTOCOL} §4",
    "required": f"{_PROTOCOL} §6",
    "capabilities.fleet_events": f"{_PROTOCOL} §6.8 (query_model 3, ops)",
    "capabilities.fleet_refusal": f"{_PROTOCOL} §6.7 (403 for a plain user)",
    "secrets": f"{_PROTOCOL} §6.6, §6.9 (never sent)",
}


def opslib_dialect() -> Dialect:
    """opslib's own platform (``opslib server``)."""
    return Dialect(name="opslib", provenance=PROVENANCE)
