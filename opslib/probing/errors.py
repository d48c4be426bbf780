"""Step 2: how the platform says a call failed.

Reads that must fail (a device and a user that do not exist, a page size of 0, a bogus
access token) show the HTTP status beside the body's code, the codes and the field the
platform writes its sentence in; a bogus refresh token shows a refused refresh.
"""

from __future__ import annotations

from typing import Any

from opslib.probing.login import refused_refresh
from opslib.probing.state import Probe, ours
from opslib.protocol import operations as ops

__all__ = ["errors"]

NO_SUCH_DEVICE = "opslib-probe-no-such-device"
NO_SUCH_USER = "opslib-probe-no-such-user"
BOGUS_TOKEN = "opslib-probe-bogus-token"  # noqa: S105 - a token no platform issued
# The fields a platform writes its sentence in, most common first ("errmsg" beside the
# built-in dialects' own).
MESSAGE_FIELDS = ("error_msg", "msg", "message", "error_description", "errmsg")


def _message_field(body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    return next((f for f in MESSAGE_FIELDS if isinstance(body.get(f), str) and body[f]), None)


def _failing_reads(probe: Probe) -> list[tuple[str, ops.Operation, dict[str, Any], str]]:
    """(the exception the failure means, the operation, its params, the access token)."""
    return [
        ("NotFound", ops.DEVICE_QUERY, {"device_id": NO_SUCH_DEVICE}, probe.token),
        (
            "NotFound",
            ops.USER_QUERY,
            {"query_model": ours("user_query_model", "by_user_id"), "user_id": NO_SUCH_USER},
            probe.token,
        ),
        (
            "BadRequest",
            ops.QUERY_BY_USER,
            {"user_id": probe.user_id, "page_no": 1, "page_size": 0},
            probe.token,
        ),
        (
            "AuthenticationError",
            ops.QUERY_SYS_SETTING,
            {"query_model": ours("setting_query_model", "all")},
            BOGUS_TOKEN,
        ),
    ]


def errors(probe: Probe) -> None:
    """Learn ``errors.signalling``, ``message_fields``, ``codes``, ``token_expired_codes``
    and ``token_refused_codes``."""
    codes: dict[int, str] = {}
    seen: list[str] = []
    signalling: set[str] = set()
    message_field: str | None = None
    expired: set[int] = set()
    for cls, op, params, token in _failing_reads(probe):
        answer = probe.call(op, params, token=token)
        code = answer.code
        if not isinstance(code, int) or (code == probe.success_code and answer.status == 200):
            seen.append(f"{op.path}: HTTP {answer.status}, no failure code")
            continue
        if answer.status == 200:
            signalling.add("body")
        else:
            signalling.add("status" if answer.status == code else "both")
        message_field = message_field or _message_field(answer.body)
        codes.setdefault(code, cls)
        if cls == "AuthenticationError":
            expired.add(code)
        seen.append(f"{op.path} ({cls}): HTTP {answer.status}, error_code {code}")
    evidence = "; ".join(seen)
    if signalling:
        mode = signalling.pop() if len(signalling) == 1 else "both"
        probe.note("errors", "signalling", mode, "high", evidence)
    else:
        probe.note("errors", "signalling", probe.base.errors.signalling, "low", evidence)
    if message_field is not None:
        rest = tuple(f for f in probe.base.errors.message_fields if f != message_field)
        probe.note(
            "errors",
            "message_fields",
            (message_field, *rest),
            "high",
            f"failures carry {message_field!r}",
        )
    if codes:
        merged = dict(probe.base.errors.codes)
        if not set(codes) <= set(merged):
            merged = {**merged, **codes}
            probe.note(
                "errors",
                "codes",
                merged,
                "medium",
                f"seen: {codes}; others kept from {probe.base.name}",
            )
        else:
            probe.seen("errors.codes", codes, "high", "as the base says")
    if expired:
        probe.note(
            "errors",
            "token_expired_codes",
            frozenset(expired),
            "medium",
            "a bogus access token's code",
        )
    refused_refresh(probe)
