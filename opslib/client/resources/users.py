"""``client.users``: profiles and message settings.

Operations: ``/user/query`` (get), ``/user/update_user_info`` (update),
``/user/query_sys_setting`` (settings), ``/user/update_sys_setting`` (update_settings).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from opslib.client._settings import Secret
from opslib.client.frames import schema as S
from opslib.client.frames.build import records_to_frame
from opslib.client.resources import Resource
from opslib.enums import SettingQueryModel, UserQueryModel
from opslib.protocol import operations as ops

__all__ = ["Users"]

_MESSAGE_FIELDS = ("recv_sys_notice", "recv_device_notice", "no_disturbing", "start", "end")
_WHICH = {
    "all": SettingQueryModel.ALL,
    "message": SettingQueryModel.MESSAGE,
    "device": SettingQueryModel.DEVICE,
}


_MINUTES_A_DAY = 24 * 60


def _minutes(value: int | str | dt.time, field: str) -> int:
    """Minutes after midnight (0..1439) from an int, ``"HH:MM"`` or a ``datetime.time``."""
    if isinstance(value, dt.time):
        return value.hour * 60 + value.minute
    if isinstance(value, str):
        try:
            hours, mins = (int(part) for part in value.strip().split(":"))
        except ValueError:
            raise ValueError(
                f"{field} must be minutes after midnight or 'HH:MM', got {value!r}"
            ) from None
        if not (0 <= hours < 24 and 0 <= mins < 60):
            raise ValueError(f"{field}: {value!r} is not a time of day; allowed '00:00'..'23:59'")
        return hours * 60 + mins
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{field} must be minutes after midnight (int) or 'HH:MM', got {value!r}")
    if not 0 <= value < _MINUTES_A_DAY:
        raise ValueError(
            f"{field}: {value} is not minutes after midnight; allowed 0..{_MINUTES_A_DAY - 1}"
        )
    return value


class Users(Resource):
    """Profiles and message settings (``client.users``)."""

    def get(
        self,
        user_id: str | None = None,
        *,
        area_code: str | None = None,
        phone: str | None = None,
        identity_id: str | None = None,
    ) -> pd.DataFrame:
        """Read one user (``/user/query``); by default the caller.

        A plain user may read only itself; anyone else answers NotFound, exactly like a
        user that does not exist. ops and admin may read anyone.

        Parameters
        ----------
        user_id
            Look up by user_id (query_model 1).
        area_code, phone
            Or by phone (query_model 2); both are needed.
        identity_id
            Or by identity_id (query_model 3).

        Returns
        -------
        pandas.DataFrame
            One row: user_id, identity_id, area_code, phone, nick_name, avatar, status,
            status_name, network.ssid, gmt_register, gmt_modified, gmt_last_login,
            gmt_logout.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.users.get()["phone"].item()
        '5550000001'
        """
        by_phone = area_code is not None or phone is not None
        chosen = sum((user_id is not None, by_phone, identity_id is not None))
        if chosen > 1:
            raise ValueError("give one of user_id, area_code + phone, or identity_id")
        if by_phone and (area_code is None or phone is None):
            raise ValueError("a lookup by phone needs both area_code and phone")
        params: dict[str, Any]
        if by_phone:
            params = {
                "query_model": int(UserQueryModel.BY_PHONE),
                "area_code": str(area_code),
                "phone": str(phone),
            }
        elif identity_id is not None:
            params = {
                "query_model": int(UserQueryModel.BY_IDENTITY_ID),
                "identity_id": str(identity_id),
            }
        else:
            target = user_id if user_id is not None else self._session.user_id
            params = {"query_model": int(UserQueryModel.BY_USER_ID), "user_id": str(target or "")}
        data = self._session.call(ops.USER_QUERY, params)
        return self._session.unsecret(records_to_frame([data], self._session.frame_schema(S.USER)))

    def update(
        self,
        *,
        nick_name: str | None = None,
        avatar: str | None = None,
        identity_id: str | None = None,
        network: dict[str, Any] | None = None,
        errors: str | None = None,
    ) -> pd.DataFrame:
        """Update the caller's profile (``/user/update_user_info``); give at least one field.

        Parameters
        ----------
        nick_name, avatar, identity_id
            New values; identity_id must not belong to another user (Conflict).
        network
            ``{"ssid": ..., "pw": ...}`` (either member, each a string); the Wi-Fi password
            is never read back. A member that is not a string (None) raises TypeError.
        errors
            "raise" (default) or "collect".

        Returns
        -------
        pandas.DataFrame
            One row: user_id, ok, error_code, error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.users.update(nick_name="Night shift")["ok"].item()
        True
        """
        params: dict[str, Any] = {}
        for name, value in (
            ("nick_name", nick_name),
            ("avatar", avatar),
            ("identity_id", identity_id),
        ):
            if value is not None:
                params[name] = str(value)
        if network is not None:
            params["network"] = _network(network)
        if not params:
            raise ValueError("update needs at least one of nick_name, avatar, identity_id, network")
        frame, _ = self._write_one(
            ops.UPDATE_USER_INFO,
            params,
            schema=S.USER_UPDATE_RESULT,
            key={"user_id": self._session.user_id},
            errors=errors,
        )
        return frame

    def settings(self, which: str = "all") -> pd.DataFrame:
        """Read the caller's settings (``/user/query_sys_setting``).

        Parameters
        ----------
        which
            "all" (query_model 1), "message" (2: no dev_config) or "device" (3: no
            message_config); the columns of the part not asked for are NA.

        Returns
        -------
        pandas.DataFrame
            One row: user_id, dev_config.page_size, message_config.recv_sys_notice,
            .recv_device_notice, .no_disturbing, .start, .end (minutes after midnight),
            .unread_notice_num, gmt_modified.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.users.settings("message")["message_config.no_disturbing"].dtype
        BooleanDtype
        """
        if which not in _WHICH:
            raise ValueError(f"which must be one of {sorted(_WHICH)}, got {which!r}")
        data = self._session.call(ops.QUERY_SYS_SETTING, {"query_model": int(_WHICH[which])})
        return records_to_frame([{**data, "user_id": self._session.user_id}], S.SETTINGS)

    def update_settings(self, *, errors: str | None = None, **message_config: Any) -> pd.DataFrame:
        """Update the caller's message settings (``/user/update_sys_setting``).

        Parameters
        ----------
        **message_config
            Any of recv_sys_notice, recv_device_notice, no_disturbing (bool), start, end
            (the do-not-disturb window: minutes after midnight, ``"HH:MM"`` or a
            ``datetime.time``).
        errors
            "raise" (default) or "collect".

        Returns
        -------
        pandas.DataFrame
            One row: user_id, ok, error_code, error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> df = client.users.update_settings(no_disturbing=True, start="22:00", end="07:00")
        >>> df["ok"].item()
        True
        """
        unknown = sorted(set(message_config) - set(_MESSAGE_FIELDS))
        if unknown:
            raise ValueError(f"unknown setting(s) {unknown}; allowed: {list(_MESSAGE_FIELDS)}")
        if not message_config:
            raise ValueError(f"update_settings needs at least one of {list(_MESSAGE_FIELDS)}")
        config: dict[str, Any] = {}
        for name, value in message_config.items():
            if name in ("start", "end"):
                config[name] = _minutes(value, name)
            elif isinstance(value, (bool, np.bool_)):  # a cell of a frame is np.bool_
                config[name] = bool(value)
            else:
                raise TypeError(f"{name} must be a bool, got {value!r}")
        frame, _ = self._write_one(
            ops.UPDATE_SYS_SETTING,
            {"message_config": config},
            schema=S.SETTINGS_UPDATE_RESULT,
            key={"user_id": self._session.user_id},
            errors=errors,
        )
        return frame


def _network(network: Any) -> dict[str, Any]:
    """``network`` as sent: a dict of ssid and/or pw, each a string (pw may be a Secret).

    None is refused, not sent as the text "None": leave a member out to keep it.
    """
    if not isinstance(network, Mapping):
        raise TypeError(
            f"network must be a dict such as {{'ssid': ..., 'pw': ...}}, got {network!r}"
        )
    unknown = sorted(set(network) - {"ssid", "pw"})
    if unknown:
        raise ValueError(f"network: unknown member(s) {unknown}; allowed: ['pw', 'ssid']")
    for name, value in network.items():
        if not isinstance(value, (str, Secret)):
            raise TypeError(
                f"network.{name} is {value!r}; allowed: a string (leave it out to keep the "
                "current one)"
            )
    return dict(network)
