"""``"vendor"``: a platform written from the spec alone that decides its open points the
way such APIs commonly do, unlike opslib's. ``opslib server --dialect vendor`` speaks it.

- every answer is HTTP 200; a failure is only in the body: a vendor ``error_code``
  (10001...), the sentence in ``msg``, ``data: null``;
- ``gmt_*`` are ISO 8601 with the offset ``+08:00``; ``start``/``end`` are epoch seconds;
- pages hold at most 100 records, more is capped without an error; ``total`` counts pages;
- the login answer's ``user_id`` is the user id, ``openid`` an app-scoped id apart from it;
  ``expires_in`` is in milliseconds;
- ``/product/add`` and ``/product/delete`` fail with a bare string on HTTP 200;
- the token call reads its parameters from the query string only;
- a fleet read the caller may not make answers an empty success.

``"vendor-local"`` is the same with zone-less local times (``YYYY-MM-DD HH:MM:SS`` at
UTC+8), ``"vendor-epoch"`` with ``gmt_*`` as strings of epoch milliseconds.

>>> from opslib.dialects.vendor import vendor_dialect
>>> vendor_dialect().errors.codes[10005]
'NotFound'
"""

from __future__ import annotations

from opslib.dialects.base import Dialect
from opslib.dialects.sections import Capabilities, Errors, Paging, Times, TokenCall

__all__ = ["VENDOR_CODES", "vendor_dialect", "vendor_epoch_dialect", "vendor_local_dialect"]

_HERE = "documented: opslib/dialects/vendor.py (opslib server --dialect vendor)"

# The vendor's error codes, each with the opslib exception it means.
VENDOR_CODES = {
    10001: "BadRequest",  # a parameter missing, mistyped or out of range
    10002: "AuthenticationError",  # access token or client credentials refused
    10003: "AuthenticationError",  # access token expired
    10004: "PermissionDenied",
    10005: "NotFound",
    10006: "Conflict",
    10007: "VerificationFailed",  # wrong code or password
    10008: "RateLimited",
    10009: "PayloadTooLarge",
    10010: "ServerError",  # internal error
    10011: "ServerError",  # temporarily unavailable
    10012: "AuthenticationError",  # refresh token or authorization code refused
}


def vendor_dialect() -> Dialect:
    """The vendor platform (``opslib server --dialect vendor``)."""
    return Dialect(
        name="vendor",
        token=TokenCall(params="query", user_id_field="user_id", expires_in_unit="ms"),
        errors=Errors(
            signalling="body",
            message_fields=("msg", "message", "error_msg", "error_description"),
            codes=VENDOR_CODES,
            success_codes=frozenset({200}),
            token_expired_codes=frozenset({10002, 10003}),
            token_refused_codes=frozenset({10012}),
            write_success={"/product/add": "{product_id}", "/product/delete": "success"},
            write_failures={
                "already exists": "Conflict",
                "not exist": "NotFound",
                "still has devices": "Conflict",
                "no permission": "PermissionDenied",
                "invalid": "BadRequest",
            },
        ),
        times=Times(gmt_format="iso", zone="+08:00", range_unit="s"),
        paging=Paging(max_page_size=100, total="pages"),
        capabilities=Capabilities(fleet_events=True, fleet_refusal="empty"),
        provenance={"*": _HERE},
    )


def vendor_local_dialect() -> Dialect:
    """The vendor platform with zone-less local times (UTC+8)."""
    base = vendor_dialect()
    return base.replace(
        name="vendor-local", times={"gmt_format": "datetime", "zone": "Asia/Shanghai"}
    )


def vendor_epoch_dialect() -> Dialect:
    """The vendor platform with ``gmt_*`` as strings of epoch milliseconds."""
    return vendor_dialect().replace(
        name="vendor-epoch", times={"gmt_format": "epoch_ms", "epoch_text": True}
    )
