"""One operation of the interface, as data: :class:`Operation` and how it pages,
:class:`Paged`. The table of them is :mod:`opslib.protocol.operations`.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from opslib import enums

__all__ = ["Answer", "Operation", "Paged", "ParamType", "Role", "Safety"]

Answer = Literal["envelope", "bare", "token"]
Safety = Literal["read", "write", "once"]
Role = Literal["pre", "device", "user", "ops", "admin"]
# A parameter's JSON type (spec part 4): what the client sends, what the server checks.
ParamType = Literal["str", "int", "bool", "object"]


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return types.MappingProxyType(dict(mapping))


# Our selectors' meanings (docs/protocol.md §4), by the table that names them.
_MEANINGS = {
    "auth_model": enums.AuthModel,
    "login_model": enums.LoginModel,
    "update_model": enums.UpdateModel,
}


def _means(table: str, code: Any) -> str | None:
    enum = _MEANINGS.get(table)
    if enum is None or isinstance(code, bool) or not isinstance(code, int):
        return None
    return next((m.name.lower() for m in enum if int(m) == code), None)


@dataclass(frozen=True)
class Paged:
    """How a list operation pages (spec §8: ``page_no``/``page_size`` in, ``total`` out)."""

    list_key: str
    """The list inside ``data``."""
    key: tuple[str, ...]
    """The fields that identify one record (a record seen twice is a repeat)."""
    time_field: str = ""
    """The moment a record happened (its time in a requested window), if it has one."""


@dataclass(frozen=True)
class Operation:
    """One operation of the interface.

    Attributes
    ----------
    name
        A short name (``"query_record"``), the same in the client, the server and the tests.
    path
        Where it lives, relative to the platform's base URL; every call is a ``POST``.
    answer
        ``"envelope"`` (``error_code``/``message_id``/``data``), ``"bare"`` (a bare JSON
        string, spec §4.13-4.14) or ``"token"`` (flat OAuth JSON, spec §4.2).
    safety
        ``"read"``: harmless to send twice; ``"write"``: recorded by ``message_id``, sent
        again with the same one and replayed (protocol §10); ``"once"``: a single-use input
        (an authorization code), sent again only when it certainly never left.
    role
        Who may call it on the reference platform (protocol §7).
    token
        It carries ``params.access_token``.
    client_id
        It carries ``params.client_id`` (spec §5.1).
    params
        Every parameter the spec lists, with its JSON type.
    required
        The parameters the reference platform requires whatever the selector (protocol §6).
    selectors
        Integer selectors: parameter -> the :attr:`Dialect.selectors
        <opslib.dialects.Dialect.selectors>` table naming their meanings.
    codes
        Coded fields, of the params and of the answer's records: field -> the
        :attr:`Dialect.enums <opslib.dialects.Dialect.enums>` key naming their labels.
    times
        The ``gmt_*`` moments of the answer's data (or of each record of its list).
    window
        The time-range parameters (``start``, ``end``), in the dialect's unit.
    day_minutes
        Times of day inside ``message_config`` (do-not-disturb ``start``/``end``), minutes
        after midnight here, in the dialect's unit on the wire.
    list_key
        The list the answer's data holds, paged or not.
    paged
        How it pages, for the paged reads.
    aliases
        Another name a platform may use for a parameter (the 2021 reference's ``user_id``
        for ``user_id_param``): alias -> the parameter.
    caller_param
        A parameter that, equal to the envelope's ``user_id``, names the caller (not a
        transfer to someone else) where a dialect requires it.
    modes
        A selector's meanings -> the parameters that go with each (``query_record``: a
        device's events take ``device_id``, a user's ``user_id_param``).
    fleet
        What makes a read the whole fleet's: (parameter, selector meaning or value).
    secret
        The secret field of its records (a platform may send it in reads).
    safety_when
        (parameter, selector meaning, safety): the safety of a call whose selector means
        that (a code sent is a recorded write, a code verified a read).
    tokenless_when
        (parameter, selector meaning): such a call carries no access token (a reset).
    schema
        The client frame schema of its records (``opslib.client.frames.schema``), if it reads.
    extension
        Not among the spec's 18 (the reference platform's device report).
    """

    name: str
    path: str
    answer: Answer = "envelope"
    safety: Safety = "read"
    role: Role = "user"
    token: bool = True
    client_id: bool = False
    params: Mapping[str, ParamType] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    selectors: Mapping[str, str] = field(default_factory=dict)
    codes: Mapping[str, str] = field(default_factory=dict)
    times: tuple[str, ...] = ()
    window: tuple[str, ...] = ()
    day_minutes: tuple[str, ...] = ()
    list_key: str = ""
    paged: Paged | None = None
    aliases: Mapping[str, str] = field(default_factory=dict)
    caller_param: str = ""
    modes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    fleet: tuple[str, str] | tuple[()] = ()
    secret: str = ""
    safety_when: tuple[str, str, Safety] | tuple[()] = ()
    tokenless_when: tuple[str, str] | tuple[()] = ()
    schema: str = ""
    extension: bool = False

    def __post_init__(self) -> None:
        for name in ("params", "selectors", "codes", "aliases", "modes"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def __repr__(self) -> str:
        return f"<operation {self.name} {self.path}>"

    @property
    def writes(self) -> bool:
        """A recorded write (protocol §10) for some selector at least."""
        return self.safety == "write" or "write" in self.safety_when

    @property
    def item_fields(self) -> tuple[str, ...]:
        """The fields one item of this write may give: every parameter but the access
        token, which the session adds.

        >>> from opslib.protocol.operations import UPDATE_INFO
        >>> UPDATE_INFO.item_fields
        ('device_id', 'user_id', 'owned', 'group_id', 'is_sub_device')
        """
        return tuple(name for name in self.params if name != "access_token")

    def safety_for(self, params: Mapping[str, Any]) -> Safety:
        """How safe this call is to send twice, by its selector (our numbers).

        >>> from opslib.protocol.operations import AUTH_CODE
        >>> AUTH_CODE.safety_for({"auth_model": 1}), AUTH_CODE.safety_for({"auth_model": 2})
        ('write', 'read')
        """
        if self.safety_when:
            name, meaning, safety = self.safety_when
            if _means(self.selectors[name], params.get(name)) == meaning:
                return safety
        return self.safety

    def needs_token(self, params: Mapping[str, Any]) -> bool:
        """Whether this call carries an access token, by its selector (our numbers).

        >>> from opslib.protocol.operations import UPDATE_PWD
        >>> UPDATE_PWD.needs_token({"update_model": 2})
        False
        """
        if self.tokenless_when:
            name, meaning = self.tokenless_when
            if _means(self.selectors[name], params.get(name)) == meaning:
                return False
        return self.token
