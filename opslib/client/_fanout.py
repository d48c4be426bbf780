"""Fleet reads on a platform without a fleet query: one read per user, side by side.

Where a platform lists devices and events per user only (the CHINT smart cloud's
``/device/query_record`` has no whole-fleet mode), ``devices.list(users=[...])`` and
``events.list(..., users=[...])`` make one complete read per user (each its own exact-total
read), concurrently, and join them into one frame: rows a user shares with another (a shared
device, its events) appear once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import pandas as pd

from opslib.client._event_table import frame_to_columns
from opslib.client.frames.build import build_frame, dedupe_and_sort
from opslib.client.frames.schema import FrameSchema
from opslib.exceptions import APIError

__all__ = ["check_users", "per_user"]


def check_users(users: Iterable[str] | pd.Series | str) -> list[str]:
    """The distinct user ids of ``users``, in order; a clear error for an empty or bad list.

    Examples
    --------
    >>> check_users(["u1", "u2", "u1"])
    ['u1', 'u2']
    """
    if isinstance(users, str):
        raise TypeError(f"users must be a list of user ids, not the string {users!r}")
    out: list[str] = []
    for user in users:
        if not isinstance(user, str) or not user.strip():
            raise ValueError(f"users: {user!r} is not a user id (a non-empty string)")
        if user not in out:
            out.append(user)
    if not out:
        raise ValueError("users: give at least one user id")
    return out


def per_user(
    read: Callable[[str], pd.DataFrame],
    users: Iterable[str],
    schema: FrameSchema,
    *,
    concurrency: int,
) -> pd.DataFrame:
    """``read(user)`` for each user, ``concurrency`` at a time, joined into one frame of
    ``schema``: duplicate keys dropped, sorted as a single read would be, ties by
    ``schema.joined_order`` (each read's rows keep their order within a tie).

    ``attrs["total"]`` is the sum of the users' totals (each read returned exactly its own
    total or raised) and ``attrs["totals"]`` each user's.
    """
    ids = check_users(users)

    def one(user: str) -> pd.DataFrame:
        try:
            return read(user)
        except APIError as exc:  # which of the users the platform refused
            exc.operation = f"{exc.operation} for user {user!r}".lstrip()
            raise

    with ThreadPoolExecutor(min(concurrency, len(ids)), thread_name_prefix="opslib-users") as pool:
        frames = list(pool.map(one, ids))
    totals = {user: int(f.attrs.get("total", len(f))) for user, f in zip(ids, frames, strict=True)}
    pages = [frame_to_columns(f, schema) for f in frames]
    del frames
    df = dedupe_and_sort(build_frame(pages, schema), schema, by=schema.joined_order or None)
    df.attrs = {"total": sum(totals.values()), "totals": totals}
    return df
