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
from opslib.client._session import Session
from opslib.client._writes import check_errors, run_writes
from opslib.client.frames.schema import FrameSchema
from opslib.protocol.operations import Operation

__all__ = ["Resource", "coerce_enum"]


class Resource:
    """Base of the resources: holds the session of the client it belongs to."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._session!r}>"

    def _paged_read(self, op: Operation, params: dict[str, Any], **options: Any) -> Pager:
        """The :class:`~opslib.client._pager.Pager` of a list operation through this
        resource's session; ``options`` are the read's own (schema, page size, ...)."""
        return Pager(self._session, op, params, **options)

    def _code(self, value: Any, enum: type[IntEnum], field: str, key: str | None = None) -> int:
        """A coded input (its code or its label) as the platform's code."""
        return self._session.codec.code_of(value, key or field, enum, field)

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
