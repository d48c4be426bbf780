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
from opslib.client._labels import code_of, relabel
from opslib.client._pager import Pager
from opslib.client._schemas import FrameSchema
from opslib.client._secrets import drop_secrets, with_secrets
from opslib.client._session import FetchPage, Session
from opslib.client._writes import check_errors, run_writes
from opslib.dialects import Dialect

__all__ = ["Resource", "coerce_enum"]


class Resource:
    """Base of the resources: holds the session of the client it belongs to."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._session!r}>"

    @property
    def _dialect(self) -> Dialect:
        """The platform's dialect (the reference platform's when the session has none)."""
        found = getattr(self._session, "dialect", None)
        return found if isinstance(found, Dialect) else Dialect()

    def _paged_read(self, path: str, params: dict[str, Any], **options: Any) -> Pager:
        """The one :class:`~opslib.client._pager.Pager` of a list operation: the session's
        page fetch and early send for ``path``, its pages in flight, dialect and throttle
        signals; ``options`` are the read's own (schema, list key, page size, ...)."""
        session = self._session
        return Pager(
            self._page_fetch(path, params),
            send=session.page_send(path, params),
            concurrency=session.concurrency,
            paging=session.dialect.paging,
            operation=path,
            listen=session.http.throttle_listener,
            **options,
        )

    def _page_fetch(self, path: str, params: dict[str, Any]) -> FetchPage:
        """One page of a paged read by the regular call: its ``data`` as the platform
        answered it, for the pager to check (:func:`opslib.protocol.reads.page`), never
        coerced to an object first (``dict("")`` is an empty page)."""
        call = self._session.call

        def fetch(page_no: int, page_size: int) -> Any:
            return call(path, {**params, "page_no": page_no, "page_size": page_size})

        return fetch

    def _schema(self, schema: FrameSchema, include_secrets: bool) -> FrameSchema:
        """The read's schema: with the secret columns only when the caller asks for them."""
        return with_secrets(schema) if include_secrets else schema

    def _unsecret(self, frame: pd.DataFrame, include_secrets: bool) -> pd.DataFrame:
        """``frame`` without the columns the platform treats as secret, unless asked for."""
        if include_secrets:
            return frame
        return drop_secrets(frame, self._session.secret_fields | self._dialect.secrets)

    def _finish(
        self, frame: pd.DataFrame, schema: FrameSchema, include_secrets: bool = False
    ) -> pd.DataFrame:
        """A read's frame as the caller gets it: labels by the dialect, secrets dropped."""
        return self._unsecret(relabel(frame, schema, self._dialect), include_secrets)

    def _code(self, value: Any, enum: type[IntEnum], field: str, key: str | None = None) -> int:
        """A coded input (its code or its label) as the platform's code."""
        return code_of(value, self._dialect, key or field, enum, field)

    def _write_one(
        self,
        path: str,
        params: dict[str, Any],
        *,
        schema: FrameSchema,
        key: dict[str, Any],
        errors: str | None,
        auth: bool = True,
        safety: Safety | None = None,
    ) -> tuple[pd.DataFrame, Any]:
        """One write (or one checked call) as a one-row result frame, and its answer."""
        answers: list[Any] = []

        def send(p: dict[str, Any], mid: str) -> Any:
            answer = self._session.call(path, p, auth=auth, safety=safety, message_id=mid)
            answers.append(answer)
            return answer

        frame = run_writes(
            [params],
            send,
            schema=schema,
            key=lambda p, a: key,
            errors=check_errors(errors, bulk=False),
            bulk=False,
            what=path,
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
