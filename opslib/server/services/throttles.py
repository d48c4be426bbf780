"""Who may try again, and when: the attempt limits of protocol §8 as the services use them.

Every secret a caller can guess has a hard limit per client address and a slower
backstop per thing guessed, so that guesses spread over many addresses slow down while a
stranger can never lock the owner out:

- passwords: a hard limit per (phone, address) and per address across phones (failures
  in the database and in memory); per phone from any address, the doubling delay of
  :func:`~opslib.server.ratelimit.doubling_delay_ms` after the latest failure. A right
  password clears its (phone, address); a new password (change or reset) clears the phone;
  an SMS-code login is never held back by wrong passwords;
- SMS codes: a hard limit per address across phones (each code also dies after five wrong
  ones, :mod:`opslib.server.services.codes`);
- SMS sends: per address, per destination prefix and in all per UTC day (beside the
  per-phone limits of :func:`~opslib.server.services.codes.send_code`);
- client secrets: a hard limit per address, the backstop per client_id;
- device secrets: a hard limit per (device, address) and per address, the backstop per
  device; its owner's re-bind passes them by (:mod:`opslib.server.services.devices`).

Each refusal is a 429 with ``Retry-After`` naming the field. The client address is the
connection's peer (behind a reverse proxy, the proxy's, unless uvicorn trusts its
``X-Forwarded-For``: ``FORWARDED_ALLOW_IPS``).
"""

from __future__ import annotations

from opslib.server.context import Context
from opslib.server.errors import OAuthError, too_many
from opslib.server.ratelimit import doubling_delay_ms
from opslib.server.store import sms as sms_store
from opslib.server.store import users as users_store

DAY_MS = 86_400_000


# -- passwords ---------------------------------------------------------------------------


def check_password(ctx: Context, *, area_code: str, phone: str) -> None:
    """429 unless a password of the phone may be tried from the caller's address now."""
    s, now, address = ctx.settings, ctx.now, ctx.client
    window = s.login_failure_window_ms
    since = now - window + 1
    mine, oldest, _ = users_store.login_failures_since(
        ctx.conn, area_code=area_code, phone=phone, since=since, address=address
    )
    if mine >= s.login_failure_limit and oldest is not None:
        raise too_many(
            "params.phone: too many failed logins of this phone from this address; retry later",
            oldest + window - now,
        )
    wait = ctx.guards.address_logins.wait_ms(address, now_ms=now)
    if wait:
        raise too_many("params.password: too many failed logins from this address", wait)
    total, _, latest = users_store.login_failures_since(
        ctx.conn, area_code=area_code, phone=phone, since=since
    )
    delay = doubling_delay_ms(
        total, free=s.login_backstop_free, base_ms=s.backstop_base_ms, max_ms=s.backstop_max_ms
    )
    if delay and latest is not None and latest + delay > now:
        raise too_many(
            "params.phone: many failed logins of this phone; retry in a moment",
            latest + delay - now,
        )


def password_failed(ctx: Context, *, area_code: str, phone: str) -> None:
    """Count a failed password of the phone from the caller's address (inside a write
    transaction; login counts it before the check and takes it back when right)."""
    users_store.add_login_failure(
        ctx.conn, area_code=area_code, phone=phone, now=ctx.now, address=ctx.client
    )
    window = ctx.settings.login_failure_window_ms
    users_store.purge_login_failures(ctx.conn, before=ctx.now - window)
    ctx.guards.address_logins.add(ctx.client, now_ms=ctx.now)


def password_right(ctx: Context, *, area_code: str, phone: str, counted: bool = True) -> None:
    """The phone's owner proved itself from this address: forget that address's failures
    of the phone (and take back the failure counted before the check)."""
    users_store.clear_login_failures(ctx.conn, area_code=area_code, phone=phone, address=ctx.client)
    if counted:
        ctx.guards.address_logins.undo(ctx.client, now_ms=ctx.now)


def password_replaced(ctx: Context, *, area_code: str, phone: str) -> None:
    """A new password: every failure of the phone, from any address, guessed the old one."""
    users_store.clear_login_failures(ctx.conn, area_code=area_code, phone=phone)


# -- SMS codes ---------------------------------------------------------------------------


def check_code(ctx: Context) -> None:
    """429 while the caller's address has too many wrong SMS codes."""
    wait = ctx.guards.address_codes.wait_ms(ctx.client, now_ms=ctx.now)
    if wait:
        raise too_many(
            "params.auth_code: too many wrong verification codes from this address", wait
        )


def code_failed(ctx: Context) -> None:
    ctx.guards.address_codes.add(ctx.client, now_ms=ctx.now)


def check_send(ctx: Context, *, area_code: str, phone: str) -> None:
    """429 when the caller's address, the number's prefix or the platform has sent enough
    codes (the per-phone limits are checked first, by the caller)."""
    s, now = ctx.settings, ctx.now
    wait = ctx.guards.address_sms.wait_ms(ctx.client, now_ms=now)
    if wait:
        raise too_many("params.phone: too many codes requested from this address", wait)
    day_start = now - now % DAY_MS
    prefix = phone[: s.sms_prefix_digits]
    sent = sms_store.sends_to_prefix_since(
        ctx.conn, area_code=area_code, prefix=prefix, since=day_start
    )
    if sent >= s.sms_prefix_daily_limit:
        raise too_many(
            f"params.phone: the daily limit of codes to numbers beginning +{area_code} {prefix}"
            " is reached; retry tomorrow",
            day_start + DAY_MS - now,
        )
    if sms_store.sends_since_all(ctx.conn, since=day_start) >= s.sms_global_daily_limit:
        raise too_many(
            "params.phone: the platform's daily limit of codes is reached; retry tomorrow",
            day_start + DAY_MS - now,
        )


def code_sent(ctx: Context) -> None:
    """Count a send for the caller's address; forget sends no limit counts any more."""
    ctx.guards.address_sms.add(ctx.client, now_ms=ctx.now)
    sms_store.purge_sends(ctx.conn, before=ctx.now - ctx.now % DAY_MS - DAY_MS)


# -- client secrets ----------------------------------------------------------------------


def check_client(ctx: Context, *, client_id: str) -> None:
    """A 429 ``slow_down`` while the address or the client has too many wrong secrets."""
    guards = ctx.guards
    wait = max(
        guards.address_clients.wait_ms(ctx.client, now_ms=ctx.now),
        guards.client_backstop.wait_ms(client_id, now_ms=ctx.now),
    )
    if wait:
        seconds = max(1, -(-wait // 1000))
        raise OAuthError(
            429,
            "slow_down",
            "client_secret: too many wrong client secrets from this address or for this"
            " client; retry later",
            headers={"Retry-After": str(seconds)},
        )


def client_failed(ctx: Context, *, client_id: str) -> None:
    ctx.guards.address_clients.add(ctx.client, now_ms=ctx.now)
    ctx.guards.client_backstop.add(client_id, now_ms=ctx.now)


# -- device secrets ----------------------------------------------------------------------

TOO_MANY_SECRETS = "device_secret: too many wrong secrets for this device or address; retry later"


def _device_key(ctx: Context, device_id: str) -> str:
    return f"{device_id}\x00{ctx.client}"


def check_device_secret(ctx: Context, *, device_id: str, field: str) -> None:
    """429 while the device from this address, the address, or the device from anywhere
    (the backstop) has too many wrong secrets."""
    guards, now = ctx.guards, ctx.now
    wait = max(
        guards.device_failures.wait_ms(_device_key(ctx, device_id), now_ms=now),
        guards.address_failures.wait_ms(ctx.client, now_ms=now),
        guards.device_backstop.wait_ms(device_id, now_ms=now),
    )
    if wait:
        raise too_many(f"{field}{TOO_MANY_SECRETS}", wait)


def device_secret_failed(ctx: Context, *, device_id: str) -> None:
    """Count a wrong (or unknown device's) secret."""
    guards, now = ctx.guards, ctx.now
    guards.device_failures.add(_device_key(ctx, device_id), now_ms=now)
    guards.address_failures.add(ctx.client, now_ms=now)
    guards.device_backstop.add(device_id, now_ms=now)


def device_secret_right(ctx: Context, *, device_id: str) -> None:
    ctx.guards.device_failures.clear(_device_key(ctx, device_id))
