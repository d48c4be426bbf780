"""Tunables of the reference platform (protocol §8), named once.

Tests build a :class:`Settings` with short lifetimes or tight limits through
:func:`dataclasses.replace`; production uses the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    """Every limit and lifetime the platform enforces.

    Times are in milliseconds unless the name says seconds.

    Examples
    --------
    >>> from dataclasses import replace
    >>> replace(Settings(), access_token_ttl_s=2).access_token_ttl_s
    2
    """

    # Tokens and codes (protocol §6.1, §6.2, §8).
    access_token_ttl_s: int = 7200
    refresh_token_ttl_s: int = 30 * 86400
    refresh_replay_grace_ms: int = 60_000
    auth_code_ttl_ms: int = 10 * 60_000
    sms_code_ttl_ms: int = 10 * 60_000
    sms_code_max_attempts: int = 5
    # SMS throttle per phone, across code_models.
    sms_min_interval_ms: int = 60_000
    sms_daily_limit: int = 10
    # Failed logins per phone.
    # (Wrong old passwords of /user/update_pwd count here too, per user's phone.)
    login_failure_limit: int = 5
    login_failure_window_ms: int = 15 * 60_000
    # Wrong device secrets (/device/report, /device/bind), per device_id and per client
    # address: a device has one secret, an address may front many devices.
    device_failure_limit: int = 10
    address_failure_limit: int = 50
    secret_failure_window_ms: int = 15 * 60_000
    # argon2id hashes at once (64 MiB and ~50 ms of the 2 cores each); beyond: 503.
    password_hash_slots: int = 2
    # Worker threads pre-login requests (login, register, codes, reset, /token/access) may
    # use at once; more wait their turn, so a flood of them never takes the threads that
    # signed-in users' requests run on (40 in all, anyio's default).
    prelogin_threads: int = 4
    # Per-token request rate: a token bucket; rate 0 turns it off.
    rate_limit_per_s: float = 1000.0
    rate_limit_burst: float = 2000.0
    # Idempotent writes are remembered this long (protocol §10).
    idempotency_window_ms: int = 24 * 3600_000
    # Events are counted per bucket of this width (schema: event_counts).
    event_bucket_ms: int = 600_000
    # Request limits. Slow clients (opslib.server.deadlines): a request's headers must
    # arrive within header_timeout_s of the connection or the request starting, its body
    # within body_timeout_s of the headers (1 MiB in 30 s is 35 KB/s), else 408 and close.
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    max_header_bytes: int = 64 * 1024
    max_body_bytes: int = 1024 * 1024
    max_page_size: int = 1000
    default_page_size: int = 20
    max_report_events: int = 500
