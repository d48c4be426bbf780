"""One class per resource, attached lazily to the client (``client.devices``, ...).

============  =========================================================================
file          operations
============  =========================================================================
auth.py       /user/auth_code, /user/register, /user/login, /user/update_pwd,
              /token/access
users.py      /user/query, /user/update_user_info, /user/query_sys_setting,
              /user/update_sys_setting
products.py   /product/query_category, /product/query_list_by_category, /product/add,
              /product/delete
devices.py    /device/query_by_user, /device/query, /device/bind, /device/update_info
events.py     /device/query_record
============  =========================================================================
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import pandas as pd

from opslib.client._http import Safety
from opslib.client._pager import Pager
from opslib.client._schemas import FrameSchema
from opslib.client._secrets import drop_secrets, with_secrets
from opslib.client._session import Session
from opslib.client._writes import check_errors, run_writes
from opslib.protocol.codec import Codec
from opslib.protocol.operations import Operation

__all__ = ["Resource", "coerce_enum"]


class Resource:
    """Base of the resources: holds the session of the client it belongs to."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._session!r}>"

    @property
    def _codec(self) -> Codec:
        """The platform's codec (its dialect applied to the wire)."""
        return self._session.codec

    def _paged_read(self, op: Operation, params: dict[str, Any], **options: Any) -> Pager:
        """The one :class:`~opslib.client._pager.Pager` of a list operation: the session's
        page fetch and early send for ``op``, its pages in flight, paging, moments and
        throttle signals; ``options`` are the read's own (schema, page size, ...)."""
        session = self._session
        assert op.paged is not None
        return Pager(
            session.page_fetch(op, params),
            send=session.page_send(op, params),
            concurrency=session.concurrency,
            paging=session.codec.paging,
            operation=op.path,
            list_key=op.paged.list_key,
            times=session.codec.times,
            listen=session.http.throttle_listener,
            **options,
        )

    def _schema(self, schema: FrameSchema, include_secrets: bool = False) -> FrameSchema:
        """The read's schema: the platform's labels on its coded columns, with the secret
        columns only when the caller asks for them."""
        return self._session.frame_schema(with_secrets(schema) if include_secrets else schema)

    def _unsecret(self, frame: pd.DataFrame, include_secrets: bool) -> pd.DataFrame:
        """``frame`` without the columns the platform treats as secret, unless asked for."""
        if include_secrets:
            return frame
        return drop_secrets(frame, self._session.secret_fields | self._codec.secrets)

    def _finish(self, frame: pd.DataFrame, include_secrets: bool = False) -> pd.DataFrame:
        """A read's frame as the caller gets it: secrets dropped."""
        return self._unsecret(frame, include_secrets)

    def _code(self, value: Any, enum: type[IntEnum], field: str, key: str | None = None) -> int:
        """A coded input (its code or its label) as the platform's code."""
        return self._codec.code_of(value, key or field, enum, field)

    def _write_one(
        self,
        op: Operation,
        params: dict[str, Any],
        *,
        schema: FrameSchema,
        key: dict[str, Any],
        errors: str | None,
        auth: bool | None = None,
        safety: Safety | None = None,
    ) -> tuple[pd.DataFrame, Any]:
        """One write (or one checked call) as a one-row result frame, and its answer."""
        answers: list[Any] = []

        def send(p: dict[str, Any], mid: str) -> Any:
            answer = self._session.call(op, p, auth=auth, safety=safety, message_id=mid)
            answers.append(answer)
            return answer

        frame = run_writes(
            [params],
            send,
            schema=schema,
            key=lambda p, a: key,
            errors=check_errors(errors, bulk=False),
            bulk=False,
            what=op.path,
        )
        return frame, (answers[0] if answers else None)


def coerce_enum(value: int | str | IntEnum, enum: type[IntEnum], field: str) -> int:
    """An enum value from an int, a member, a member name or its label (``"alarm"``).

    Raises
    ------
    ValueError
        Naming the field and the allowed values.
    """
    if isinstance(value, enum):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if value in {int(m) for m in enum}:
            return value
    elif isinstance(value, str):
        wanted = value.strip().lower().replace("_", " ")
        for member in enum:
            label = getattr(member, "label", member.name.lower())
            if wanted in (label.lower(), member.name.lower().replace("_", " ")):
                return int(member)
    allowed = ", ".join(f"{int(m)} ({getattr(m, 'label', m.name)})" for m in enum)
    raise ValueError(f"{field} must be one of {allowed}; got {value!r}")
