"""Tunables of the reference platform (protocol §8), named once.

Tests build a :class:`Settings` with short lifetimes or tight limits through
:func:`dataclasses.replace`; production uses the defaults.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

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
    # SMS sends (protocol §8): per phone across code_models (one per interval, a daily
    # limit), per client address (a sliding window), per destination prefix (the area
    # code and the phone's first sms_prefix_digits digits) and in all, per UTC day.
    sms_min_interval_ms: int = 60_000
    sms_daily_limit: int = 10
    sms_address_limit: int = 30
    sms_address_window_ms: int = 3600_000
    sms_prefix_digits: int = 3
    sms_prefix_daily_limit: int = 1000
    sms_global_daily_limit: int = 20_000
    # Failed logins (wrong passwords; wrong old passwords of /user/update_pwd too): per
    # (phone, client address) a hard limit in the window, so a stranger's guesses hold
    # back only the stranger's address; per phone from any address, beyond
    # login_backstop_free failures, each attempt waits a delay after the latest failure
    # that doubles from backstop_base_ms up to backstop_max_ms; per client address across
    # phones, a hard limit.
    login_failure_limit: int = 5
    login_failure_window_ms: int = 15 * 60_000
    login_backstop_free: int = 10
    address_login_failure_limit: int = 20
    backstop_base_ms: int = 1000
    backstop_max_ms: int = 60_000
    # Wrong SMS codes per client address across phones (verify, login, register, reset);
    # each code also dies after sms_code_max_attempts wrong ones.
    address_code_failure_limit: int = 20
    code_failure_window_ms: int = 15 * 60_000
    # Wrong client secrets (/token/access): per client address a hard limit; per client_id
    # from any address, beyond client_backstop_free, the doubling delay.
    address_client_failure_limit: int = 10
    client_backstop_free: int = 100
    client_failure_window_ms: int = 15 * 60_000
    # Wrong device secrets (/device/report, /device/bind): per (device_id, client address)
    # and per client address a hard limit (an address may front many devices); per
    # device_id from any address, beyond device_backstop_free, the doubling delay. A
    # device's owner re-binding it is never held back by others' failures.
    device_failure_limit: int = 10
    address_failure_limit: int = 50
    device_backstop_free: int = 20
    secret_failure_window_ms: int = 15 * 60_000
    # argon2id hashes at once (64 MiB and ~50 ms of the 2 cores each), and at once for one
    # client address, so that one address never holds every slot; beyond either: 503.
    password_hash_slots: int = 2
    password_hash_slots_per_address: int = 1
    # Worker threads pre-login requests (login, register, codes, reset, /token/access) may
    # use at once; more wait their turn, so a flood of them never takes the threads that
    # signed-in users' requests run on.
    prelogin_threads: int = 4
    # Worker threads signed-in users' requests run on at once (one a CPU this process may
    # use, at least 2); more wait their turn on the event loop. An answer is CPU work
    # (SQLite, JSON): threads beyond the CPUs only take turns at the GIL, and a client's 32
    # pages in flight on 40 threads took a 100-row read a quarter longer (docs/performance.md).
    answer_threads: int = field(default_factory=lambda: max(2, _cpus()))
    # Per-token request rate: a token bucket; rate 0 turns it off.
    rate_limit_per_s: float = 1000.0
    rate_limit_burst: float = 2000.0
    # Quotas of a plain user (ops and admin have none): devices owned (a bind beyond it
    # is a 403) and events its devices report per window (beyond it a 429 until the
    # window ends; counted in the server's memory).
    user_device_quota: int = 500
    user_event_quota: int = 50_000
    user_event_quota_window_ms: int = 3600_000
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


def _cpus() -> int:
    """The CPUs this process may run on (its affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
