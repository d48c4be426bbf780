"""The people stage: the demo, ops and admin accounts, the plain users and their settings.

**This is demo data**: argon2id is slow on purpose (~50 ms a hash), so each *distinct*
password is hashed once, with a salt drawn from the generator, and the hash string is shared
by every seeded user with that password. A real platform never shares salts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from argon2 import PasswordHasher
from argon2.low_level import hash_secret

from opslib.enums import Role
from opslib.server import demo
from opslib.server.seed.arrays import I64, IntArray, unique_ids
from opslib.server.seed.scales import DAY_MS, Run
from opslib.server.seed.vocabulary import (
    AVATAR_BASE,
    FIRST_NAMES,
    LAST_INITIALS,
    SEEDED_PHONE_BASE,
)

__all__ = ["People", "build_people"]


@dataclass(frozen=True)
class People:
    """What the people stage made (index = user number: 0 ops, 1 admin, 2 demo user).

    Attributes
    ----------
    n
        Number of users.
    ids
        ``user_id`` of each user.
    register
        Sign-up moment of each user (epoch ms).
    user_rows, settings_rows
        Rows of the ``users`` and ``settings`` tables.
    """

    n: int
    ids: list[str]
    register: IntArray
    user_rows: list[tuple[Any, ...]]
    settings_rows: list[tuple[Any, ...]]


def _hash_password(password: str, salt: bytes) -> str:
    """argon2id with argon2-cffi's default parameters and a given (generated) salt."""
    hasher = PasswordHasher()
    return hash_secret(
        password.encode("utf-8"),
        salt,
        time_cost=hasher.time_cost,
        memory_cost=hasher.memory_cost,
        parallelism=hasher.parallelism,
        hash_len=hasher.hash_len,
        type=hasher.type,
    ).decode("ascii")


def build_people(run: Run) -> People:
    """Generate the users and their settings (the second stage).

    Parameters
    ----------
    run
        The shared state of this seed.

    Returns
    -------
    People
        Rows for the tables, the user ids and their sign-up moments.
    """
    rng, s = run.rng, run.scale
    n = max(s.users, 3)
    uids = unique_ids(rng, n, "u-", 12)
    salts = {
        p: rng.bytes(16)
        for p in (
            demo.OPS_PASSWORD,
            demo.ADMIN_PASSWORD,
            demo.USER_PASSWORD,
            demo.SEEDED_USER_PASSWORD,
        )
    }
    hashes = {p: _hash_password(p, salt) for p, salt in salts.items()}
    until = run.until

    # Sign-ups spread over ~2.5 years, more of them recently.
    register = until - 900 * DAY_MS + (rng.beta(1.6, 1.0, n) * 899 * DAY_MS).astype(I64)
    register[0] = until - 820 * DAY_MS + int(rng.integers(0, DAY_MS))
    register[1] = until - 810 * DAY_MS + int(rng.integers(0, DAY_MS))
    register[2] = until - 400 * DAY_MS + int(rng.integers(0, DAY_MS))
    modified = register + (rng.random(n) * (until - register) * 0.5).astype(I64)
    logged_in = rng.random(n) < 0.9
    logged_in[:3] = True
    last_login = until - (rng.exponential(5 * DAY_MS, n)).astype(I64)
    last_login = np.maximum(last_login, modified)
    logged_out = logged_in & (rng.random(n) < 0.25)
    logout = register + (rng.random(n) * (last_login - register)).astype(I64)
    status = rng.choice(3, size=n, p=[0.97, 0.02, 0.01]) + 1
    status[:3] = 1
    has_identity = rng.random(n) < 0.4
    has_nick = rng.random(n) < 0.7
    has_avatar = rng.random(n) < 0.3
    has_network = rng.random(n) < 0.5
    first = rng.integers(0, len(FIRST_NAMES), n)
    last = rng.integers(0, len(LAST_INITIALS), n)
    wifi_pw = [rng.bytes(9).hex() for _ in range(n)]
    ssid_tag = rng.integers(0, 1 << 16, n)

    rows: list[tuple[Any, ...]] = []
    for i in range(n):
        if i == 0:
            phone, role, pw, nick = demo.OPS_PHONE, Role.OPS, demo.OPS_PASSWORD, "Ops desk"
        elif i == 1:
            phone, role, pw = demo.ADMIN_PHONE, Role.ADMIN, demo.ADMIN_PASSWORD
            nick = "Platform admin"
        elif i == 2:
            phone, role, pw, nick = demo.USER_PHONE, Role.USER, demo.USER_PASSWORD, "Demo User"
        else:
            phone = str(SEEDED_PHONE_BASE + i - 3)
            role, pw = Role.USER, demo.SEEDED_USER_PASSWORD
            nick = f"{FIRST_NAMES[first[i]]} {LAST_INITIALS[last[i]]}." if has_nick[i] else ""
        identity = (
            f"{FIRST_NAMES[first[i]].lower()}.{LAST_INITIALS[last[i]].lower()}{i}"
            if has_identity[i] or i == 2
            else None
        )
        avatar = f"{AVATAR_BASE}/{uids[i]}.png" if has_avatar[i] else ""
        if has_network[i] or i == 2:
            ssid, net_pw = f"Home-{ssid_tag[i]:04X}", wifi_pw[i]
        else:
            ssid, net_pw = "", ""
        rows.append(
            (
                uids[i],
                demo.AREA_CODE,
                phone,
                hashes[pw],
                int(role),
                int(status[i]),
                identity,
                nick,
                avatar,
                ssid,
                net_pw,
                int(register[i]),
                int(modified[i]),
                int(last_login[i]) if logged_in[i] else None,
                int(logout[i]) if logged_out[i] else None,
            )
        )

    page = rng.choice([10, 20, 50], size=n, p=[0.15, 0.7, 0.15])
    recv_sys = rng.random(n) < 0.85
    recv_dev = rng.random(n) < 0.92
    dnd = rng.random(n) < 0.25
    dnd_start = rng.choice([1260, 1320, 1380], size=n)
    dnd_end = rng.choice([360, 420, 480], size=n)
    unread = rng.poisson(2.0, n)
    s_modified = register + (rng.random(n) * (until - register)).astype(I64)
    settings_rows = [
        (
            uids[i],
            int(page[i]),
            int(recv_sys[i]),
            int(recv_dev[i]),
            int(dnd[i]),
            int(dnd_start[i]),
            int(dnd_end[i]),
            int(unread[i]),
            int(s_modified[i]),
        )
        for i in range(n)
    ]
    return People(n=n, ids=uids, register=register, user_rows=rows, settings_rows=settings_rows)
