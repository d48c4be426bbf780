"""SMS verification codes: send (throttled), verify, consume (protocol §6.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opslib.enums import CodeModel
from opslib.server import security
from opslib.server.context import Context
from opslib.server.errors import ApiError, too_many
from opslib.server.security import Secret
from opslib.server.services import throttles
from opslib.server.sms import SmsMessage
from opslib.server.store import sms as sms_store
from opslib.server.store import users as users_store

DAY_MS = 86_400_000
WRONG_CODE = "params.auth_code: wrong, expired or already used verification code"


def send_code(ctx: Context, *, area_code: str, phone: str, purpose: int) -> None:
    """Send a fresh code unless the phone, the caller's address, the number's prefix or the
    platform has had enough (429, and the gateway is not called).

    The code goes out only when it can be used (register: an unregistered phone;
    login/reset: a registered one), but every send counts towards the throttles and the
    answer is the same, so the endpoint does not tell which phones are registered.
    """
    s, now = ctx.settings, ctx.now
    recent, latest = sms_store.sends_since(
        ctx.conn, area_code=area_code, phone=phone, since=now - s.sms_min_interval_ms + 1
    )
    if recent and latest is not None:
        raise too_many(
            f"params.phone: at most one code per {s.sms_min_interval_ms // 1000} s; retry later",
            latest + s.sms_min_interval_ms - now,
        )
    day_start = now - now % DAY_MS
    today, _ = sms_store.sends_since(ctx.conn, area_code=area_code, phone=phone, since=day_start)
    if today >= s.sms_daily_limit:
        raise too_many(
            f"params.phone: at most {s.sms_daily_limit} codes per UTC day; retry tomorrow",
            day_start + DAY_MS - now,
        )
    throttles.check_send(ctx, area_code=area_code, phone=phone)
    sms_store.record_send(ctx.conn, area_code=area_code, phone=phone, now=now)
    throttles.code_sent(ctx)
    registered = users_store.get_user_by_phone(ctx.conn, area_code=area_code, phone=phone)
    if (registered is None) != (purpose == CodeModel.REGISTER):
        return
    code = Secret(security.new_sms_code())
    sms_store.put_code(
        ctx.conn,
        area_code=area_code,
        phone=phone,
        purpose=purpose,
        code_hash=security.sha256_hex(code),
        now=now,
        expires_at=now + s.sms_code_ttl_ms,
    )
    ctx.sms.send(SmsMessage(area_code, phone, purpose, code, now))


def check_code(
    ctx: Context, *, area_code: str, phone: str, purpose: int, code: Secret, consume: bool
) -> None:
    """Verify ``code``; a wrong one counts an attempt (kept even though this raises 422)
    and a failure of the caller's address, which beyond its limit is a 429.

    Parameters
    ----------
    ctx
        Inside a write transaction.
    consume
        Mark the code used on success (register, login, reset); verification alone
        (``/user/auth_code`` auth_model 2) leaves it usable.
    """
    throttles.check_code(ctx)
    row = sms_store.get_code(ctx.conn, area_code=area_code, phone=phone, purpose=purpose)
    if row is None or not _live(ctx, row):
        throttles.code_failed(ctx)
        raise ApiError(422, WRONG_CODE)
    if not security.matches(code, row["code_hash"]):
        sms_store.add_attempt(ctx.conn, area_code=area_code, phone=phone, purpose=purpose)
        throttles.code_failed(ctx)
        raise ApiError(422, WRONG_CODE, persist=True)
    if consume:
        sms_store.mark_used(
            ctx.conn, area_code=area_code, phone=phone, purpose=purpose, now=ctx.now
        )


def check_any_code(ctx: Context, *, area_code: str, phone: str, code: Secret) -> None:
    """Verify ``code`` against every live code of the phone, whatever it is for (a
    verification that names no ``code_model``, protocol §6.1); it stays usable. A wrong
    one counts an attempt on each live code (kept even though this raises 422).

    Parameters
    ----------
    ctx
        Inside a write transaction.
    """
    throttles.check_code(ctx)
    live = [
        row
        for row in sms_store.codes_of(ctx.conn, area_code=area_code, phone=phone)
        if _live(ctx, row)
    ]
    if any(security.matches(code, row["code_hash"]) for row in live):
        return
    for row in live:
        sms_store.add_attempt(ctx.conn, area_code=area_code, phone=phone, purpose=row["purpose"])
    throttles.code_failed(ctx)
    raise ApiError(422, WRONG_CODE, persist=bool(live))


def _live(ctx: Context, row: Mapping[str, Any]) -> bool:
    """A code not used, not expired, not dead of wrong attempts."""
    return (
        row["used_at"] is None
        and row["expires_at"] > ctx.now
        and row["attempts"] < ctx.settings.sms_code_max_attempts
    )
