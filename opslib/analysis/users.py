"""One user at a glance: the profile (phone masked when asked) and notification settings."""

from __future__ import annotations

import numpy as np
import pandas as pd

from opslib._missing import is_missing
from opslib._phones import mask_phone

__all__ = ["mask_phone", "profile_table", "settings_table"]


def _text(value: object) -> str:
    """A value as shown: moments in their own zone as ``2026-11-19 13:59:14 UTC``, missing
    as ""."""
    from opslib.analysis.zones import zone_label

    if is_missing(value):
        return ""
    if isinstance(value, bool | np.bool_):  # as every table says it
        return "yes" if value else "no"
    if isinstance(value, pd.Timestamp):
        zone = zone_label(value.tzinfo) if value.tzinfo is not None else "UTC"
        return f"{value:%Y-%m-%d %H:%M:%S} {zone}"
    return str(value)


_FIELDS = {
    "network.ssid": "Wi-Fi network",
    "identity_id": "identity id",
    "user_id": "user id",
    "nick_name": "nick name",
    "message_config.start": "do not disturb from",
    "message_config.end": "do not disturb until",
    "message_config.no_disturbing": "do not disturb",
    "message_config.recv_sys_notice": "system notices",
    "message_config.recv_device_notice": "device notices",
    "message_config.unread_notice_num": "unread notices",
    "dev_config.page_size": "devices a page (app)",
}


def _field(name: str) -> str:
    """A field as people name it: ``last login`` for ``gmt_last_login``."""
    if name in _FIELDS:
        return _FIELDS[name]
    return name.removeprefix("gmt_").removesuffix("_name").replace("_", " ").replace(".", " ")


def _vertical(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    if frame.empty:
        return pd.DataFrame(
            {"field": pd.Series([], dtype="string"), "value": pd.Series([], dtype="string")}
        )
    if len(frame) != 1:
        raise ValueError(f"{what} expects a frame of one row, got {len(frame)}")
    # a code beside its label (status and status_name): the label, under the code's name
    frame = frame.drop(columns=[c for c in frame.columns if f"{c}_name" in frame.columns])
    row = frame.iloc[0]
    values = [_text(v) for v in row.to_list()]
    return pd.DataFrame(
        {
            "field": pd.array([_field(str(c)) for c in frame.columns], dtype="string"),
            "value": pd.array(values, dtype="string"),
        }
    )


def profile_table(user: pd.DataFrame, *, mask: bool = True) -> pd.DataFrame:
    """A user frame of one row as a two-column table (``field``, ``value``).

    Parameters
    ----------
    user
        ``client.users.get(...)``.
    mask
        Mask the phone number (unattended reports always do).

    Examples
    --------
    >>> analysis.profile_table(client.users.get(user_id))  # doctest: +SKIP
    """
    shown = user.copy()
    if mask and "phone" in shown.columns:
        shown["phone"] = shown["phone"].map(mask_phone).astype("string")
    return _vertical(shown, "profile_table")


def settings_table(settings: pd.DataFrame) -> pd.DataFrame:
    """A settings frame of one row as a two-column table, with do-not-disturb as clock times.

    Examples
    --------
    >>> analysis.settings_table(client.users.settings())  # doctest: +SKIP
    """
    shown = settings.copy()
    for column in ("message_config.start", "message_config.end"):
        if column in shown.columns:
            shown[column] = shown[column].map(
                lambda m: "" if is_missing(m) else f"{int(m) // 60:02d}:{int(m) % 60:02d}"
            )
    return _vertical(shown, "settings_table")
