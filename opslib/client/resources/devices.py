"""``client.devices``: devices and their bindings.

Operations: ``/device/query_by_user`` (list, iter_pages), ``/device/query`` (get),
``/device/bind`` (bind), ``/device/update_info`` (update).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pandas as pd

from opslib.client import _constants as C
from opslib.client._fanout import per_user
from opslib.client._pager import Pager
from opslib.client._session import check_flag, check_int
from opslib.client._writes import check_errors, check_item, items_from, run_writes
from opslib.client.frames import schema as S
from opslib.client.frames.build import records_to_frame
from opslib.client.resources import Resource
from opslib.enums import DeviceStatus, Owned
from opslib.exceptions import Unsupported
from opslib.protocol import operations as ops
from opslib.protocol.operations import Operation

__all__ = ["Devices"]


DeviceItems = str | pd.DataFrame | Mapping[str, Any] | Iterable[Mapping[str, Any] | str]


class Devices(Resource):
    """Devices and bindings (``client.devices``)."""

    def _paged(
        self,
        user_id: str | None,
        owned: int | str | Owned | None,
        group_id: int | None,
        is_sub_device: bool | None,
        limit: int | None,
        progress: bool | None,
        page_size: int,
        include_secrets: bool = False,
    ) -> Pager:
        params: dict[str, Any] = {}
        if owned is not None:
            params["owned"] = self._code(owned, Owned, "owned")
        if group_id is not None:
            params["group_id"] = check_int("group_id", group_id)
        if check_flag("is_sub_device", is_sub_device, optional=True) is not None:
            params["is_sub_device"] = is_sub_device
        if user_id is None:
            if self._session.codec.requires(ops.QUERY_BY_USER, "user_id"):
                raise Unsupported(
                    f"this platform (dialect {self._session.codec.name!r}) lists devices per user "
                    "only: pass user_id=, or users=[...] to list several users' devices"
                )
            user_id = "" if self._session.may_read_fleet() else (self._session.user_id or "")
        params["user_id"] = str(user_id)
        return self._paged_read(
            ops.QUERY_BY_USER,
            params,
            schema=self._session.frame_schema(S.DEVICE, include_secrets),
            page_size=page_size,
            limit=limit,
            progress=progress,
            desc="devices",
        )

    def list(
        self,
        user_id: str | None = None,
        *,
        users: Iterable[str] | None = None,
        owned: int | str | Owned | None = None,
        group_id: int | None = None,
        is_sub_device: bool | None = None,
        limit: int | None = None,
        progress: bool | None = None,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        include_secrets: bool = False,
    ) -> pd.DataFrame:
        """List devices with every page fetched (``/device/query_by_user``).

        Parameters
        ----------
        user_id
            Whose bindings; None means everything the caller may see: the whole fleet for
            ops and admin (one row per device, with its owner), else the caller's own.
        users
            Several users' devices: one complete read per user, concurrently, joined with
            duplicates dropped (``attrs["totals"]`` per user). The way to list a fleet on a
            platform that lists per user only (:class:`opslib.Unsupported` otherwise).
        owned
            1/"owner" or 0/"shared" bindings only.
        group_id
            One space / group only.
        is_sub_device
            Sub-devices only (True) or top-level devices only (False).
        limit
            At most this many rows (None: all).
        progress
            Show a progress bar; None shows one when the read needs more than a few pages.
        page_size
            Rows per request (1..1000).
        include_secrets
            Keep the device_secret a platform may send (a device_secret column); by
            default secrets never reach a frame.

        Returns
        -------
        pandas.DataFrame
            One row per device: device_id, user_id (owner), nick_name, product_id,
            category_id, mac_addr, sdk_version, version, net_addr, status (+ status_name),
            owned (+ owned_name), group_id, is_sub_device, gmt_bind, gmt_last_seen, then
            properties.* (latest reported values). Sorted by gmt_bind, device_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> df = client.devices.list(limit=10)
        >>> str(df["status"].dtype)
        'Int64'
        """
        if users is not None:
            if user_id is not None:
                raise ValueError("give users or user_id, not both")

            def one(user: str) -> pd.DataFrame:
                read = self._paged(
                    user, owned, group_id, is_sub_device, None, False, page_size, include_secrets
                )
                return read.frame()

            schema = self._session.frame_schema(S.DEVICE, include_secrets)
            df = per_user(one, users, schema, concurrency=self._session.concurrency)
            if limit is not None and len(df) > limit:
                df = df.iloc[:limit].reset_index(drop=True)
            return self._session.unsecret(df, include_secrets)
        read = self._paged(
            user_id, owned, group_id, is_sub_device, limit, progress, page_size, include_secrets
        )
        return self._session.unsecret(read.frame(), include_secrets)

    def iter_pages(
        self,
        user_id: str | None = None,
        *,
        owned: int | str | Owned | None = None,
        group_id: int | None = None,
        is_sub_device: bool | None = None,
        limit: int | None = None,
        progress: bool | None = False,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        page_no: int = 1,
        include_secrets: bool = False,
    ) -> Iterator[pd.DataFrame]:
        """Yield one typed frame per page, for memory-bounded work over many devices.

        Parameters are those of :meth:`list`, plus ``page_no``, the page to start from.
        Each frame's ``attrs`` has ``page_no``, ``page_size`` and ``total``; resume with
        ``page_no=attrs["page_no"] + 1``.

        Returns
        -------
        Iterator[pandas.DataFrame]
            Frames with the columns of :meth:`list`.

        Examples
        --------
        >>> client = opslib.connect()
        >>> for page in client.devices.iter_pages(page_size=500):
        ...     print(page.attrs["page_no"], len(page))  # doctest: +SKIP
        """
        read = self._paged(
            user_id, owned, group_id, is_sub_device, limit, progress, page_size, include_secrets
        )
        return (self._session.unsecret(page, include_secrets) for page in read.pages(page_no))

    def get(self, device_id: str, *, include_secrets: bool = False) -> pd.DataFrame:
        """Read one device (``/device/query``); one the caller is bound to (ops: any).

        Parameters
        ----------
        device_id
            The device.
        include_secrets
            Keep the device_secret a platform may send (see :meth:`list`).

        Returns
        -------
        pandas.DataFrame
            One row with the columns of :meth:`list`.

        Examples
        --------
        >>> client = opslib.connect()
        >>> device_id = client.devices.list(limit=1)["device_id"].item()
        >>> client.devices.get(device_id).shape[0]
        1
        """
        if not isinstance(device_id, str) or not device_id:
            raise TypeError(f"device_id must be a non-empty string, got {device_id!r}")
        schema = self._session.frame_schema(S.DEVICE, include_secrets)
        data = self._session.call(ops.DEVICE_QUERY, {"device_id": device_id})
        return self._session.unsecret(records_to_frame([data], schema), include_secrets)

    def _write(
        self,
        op: Operation,
        devices: DeviceItems,
        fields: dict[str, Any],
        errors: str | None,
        what: str,
        changes: bool = False,
    ) -> pd.DataFrame:
        allowed = op.item_fields
        if isinstance(devices, str):
            items, bulk = items_from({"device_id": devices, **fields}, allowed=allowed, what=what)
        else:
            if not isinstance(devices, (pd.DataFrame, Mapping, Iterable)):
                raise TypeError(
                    f"{what}: give a device_id, a list of them, or a DataFrame / list of dicts "
                    f"with a device_id per row; got {type(devices).__name__}"
                )
            rows: pd.DataFrame | Mapping[str, Any] | list[Any] = (
                devices
                if isinstance(devices, (pd.DataFrame, Mapping))
                else [{"device_id": d} if isinstance(d, str) else d for d in devices]
            )  # ids stand for their rows
            items, bulk = items_from(rows, allowed=allowed, what=what)
            extra, _ = items_from(fields, allowed=allowed, what=what)
            items = [{**extra[0], **item} for item in items]
        missing = [i for i, item in enumerate(items) if not item.get("device_id")]
        if missing:
            raise ValueError(f"{what}: rows {missing[:10]} have no device_id")
        still = [i for i, item in enumerate(items) if set(item) == {"device_id"}]
        if changes and still:
            fields_named = ", ".join(name for name in allowed if name != "device_id")
            raise ValueError(f"{what}: rows {still[:10]} change nothing; give {fields_named}")
        for item in items:
            if "owned" in item:
                item["owned"] = self._code(item["owned"], Owned, "owned")
            if "status" in item:
                item["status"] = self._code(item["status"], DeviceStatus, "status", "device_status")
            if "category_id" in item:
                item["category_id"] = str(item["category_id"])  # a string on devices (spec §2)
            if "is_sub_device" in item:
                item["is_sub_device"] = _yes_no(item["is_sub_device"], what)

        def send(params: dict[str, Any], mid: str) -> Any:
            return self._session.call(op, params, message_id=mid)

        return run_writes(
            items,
            send,
            schema=S.DEVICE_WRITE_RESULT,
            key=lambda p, _: {"device_id": p["device_id"]},
            errors=check_errors(errors, bulk=bulk),
            bulk=bulk,
            what=what,
            check=lambda item: check_item(self._session.codec, op, item),
        )

    def bind(
        self, devices: DeviceItems, *, errors: str | None = None, **fields: Any
    ) -> pd.DataFrame:
        """Bind devices to the caller (``/device/bind``), one call per device.

        A new device_id is created and bound with the caller as owner; an existing unbound
        device needs its device_secret; a device bound to someone else is a Conflict.

        Parameters
        ----------
        devices
            A device_id, a list of them, or a DataFrame / list of dicts with device_id per
            row.
        errors
            "raise" or "collect"; default "raise" for one device, "collect" for many.
        **fields
            device_secret and product_id (required), mac_addr, sdk_version, version,
            net_addr, status (0 only), group_id, is_sub_device, owned (1 only),
            category_id. For many devices, they fill what a row leaves out.

        Returns
        -------
        pandas.DataFrame
            One row per device: device_id, ok, error_code, error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.devices.bind("dev-test-001", device_secret="secret-0001",
        ...     product_id="p-lamp-01")["ok"].item()  # doctest: +SKIP
        True
        """
        return self._write(ops.BIND, devices, fields, errors, "devices.bind")

    def update(
        self, devices: DeviceItems, *, errors: str | None = None, **fields: Any
    ) -> pd.DataFrame:
        """Update the caller's bindings (``/device/update_info``), one call per device.

        Parameters
        ----------
        devices
            A device_id, a list of them, or a DataFrame / list of dicts with device_id per
            row; a row that changes nothing raises ValueError before anything is sent.
        errors
            "raise" or "collect"; default "raise" for one device, "collect" for many.
        **fields
            group_id, is_sub_device; user_id and owned (transferring ownership is for
            admin). For many devices, they fill what a row leaves out.

        Returns
        -------
        pandas.DataFrame
            One row per device: device_id, ok, error_code, error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> mine = client.devices.list(client.user_id, limit=2)[["device_id"]].assign(group_id=7)
        >>> client.devices.update(mine)["ok"].all()  # doctest: +SKIP
        True
        """
        what = "devices.update"
        return self._write(ops.UPDATE_INFO, devices, fields, errors, what, changes=True)


def _yes_no(value: Any, what: str) -> bool:
    """is_sub_device as sent: True/False, or 1/0 (a CSV's column); "no" is true to Python,
    so a string is refused, naming the value."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{what}: is_sub_device must be True or False (or 1 / 0), got {value!r}")
