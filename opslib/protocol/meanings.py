"""Integer selectors and coded values between the reference platform's numbers and a
dialect's, by meaning; the tables are built once per dialect.

A selector's number means something (``login_model`` 1 is "password" for us, 0 for the
CHINT smart cloud): the client writes ours into the dialect's (:meth:`Meanings.out`), the
server reads the dialect's back into ours (:meth:`Meanings.into`). Coded values of records
(``event_type``, ``net_type``...) keep the platform's numbers in the client; only opslib's
own server, speaking another dialect over its core, maps them
(:attr:`~opslib.dialects.Serving.codes_out`, ``codes_in``).

``/user/auth_code`` is the one selector that is not one-to-one: ours says send or verify
and ``code_model`` what the code is for; a dialect without a ``send`` meaning (the CHINT
smart cloud) names the purpose in ``auth_model`` itself (register 3, login 1,
reset_password 4; verify 6) and ``code_model`` is the channel (SMS 0).

>>> from opslib.dialects import Dialect
>>> chint = Meanings(Dialect.named("chint"))
>>> chint.out("login_model", 1, field="login_model")
0
>>> chint.into("record_query_model", 1, field="query_model")
2
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opslib.dialects import Dialect
from opslib.exceptions import Unsupported

__all__ = ["Meanings", "Refused", "whole_number"]

_REFERENCE = Dialect().selectors
# Our auth_model meanings, and the code_model meanings a purpose-naming auth_model takes.
_SEND, _VERIFY = "send", "verify"


class Refused(ValueError):
    """A request the dialect does not allow, naming the parameter (the server answers it
    with the dialect's parameter error)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = f"{field}: {message}"


def whole_number(value: Any) -> int | None:
    """``value`` as an integer when JSON's reading makes it one (``5`` and ``5.0``; never a
    boolean), else None.

    >>> whole_number(5.0), whole_number(True), whole_number(5.5)
    (5, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _inverse(table: Mapping[str, int]) -> dict[int, str]:
    return {code: meaning for meaning, code in table.items()}


class Meanings:
    """A dialect's selectors and served codes, both ways."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.plain = dict(dialect.selectors) == dict(_REFERENCE)
        """The selectors are the reference platform's: nothing to translate."""
        self._ours = {t: _inverse(m) for t, m in _REFERENCE.items()}
        self._theirs = {t: _inverse(m) for t, m in dialect.selectors.items()}
        self.purposes = _SEND not in dialect.selectors.get("auth_model", {_SEND: 1})
        """``auth_model`` names a code's purpose (no send/verify pair)."""

    def meaning_of(self, table: str, code: Any) -> str | None:
        """What our selector ``code`` of ``table`` means (``"fleet"``), or None."""
        number = whole_number(code)
        return self._ours.get(table, {}).get(number) if number is not None else None

    # -- the client: our selector -> the dialect's ---------------------------------------

    def out(self, table: str, code: Any, *, field: str, path: str = "") -> Any:
        """Our selector ``code`` of ``table`` as the dialect's number for the same meaning
        (a code we do not know is sent as it is).

        Raises
        ------
        opslib.Unsupported
            The meaning does not exist on the platform (a whole-fleet query on one that
            has none); nothing is sent.
        """
        meaning = self._ours.get(table, {}).get(code)
        if meaning is None or self.plain:
            return code
        theirs = self.dialect.selectors.get(table, {})
        if meaning not in theirs:
            raise Unsupported(
                f"{path}: this platform (dialect {self.dialect.name!r}) has no {field} for "
                f"{meaning!r}; it offers {sorted(theirs)}"
            )
        return theirs[meaning]

    def auth_code_out(self, params: dict[str, Any], *, path: str) -> None:
        """``/user/auth_code``'s ``auth_model``/``code_model`` in the dialect's numbers
        (changed in place)."""
        if not self.purposes:
            for field in ("auth_model", "code_model"):
                if field in params:
                    params[field] = self.out(field, params[field], field=field, path=path)
            return
        theirs = self.dialect.selectors.get("auth_model", {})
        action = self.meaning_of("auth_model", params.get("auth_model"))
        purpose = self.meaning_of("code_model", params.get("code_model"))
        wanted = _VERIFY if action == _VERIFY else purpose
        if wanted is None or wanted not in theirs:
            raise Unsupported(
                f"{path}: this platform (dialect {self.dialect.name!r}) has no auth_model "
                f"for {wanted!r}; it offers {sorted(theirs)}"
            )
        params["auth_model"] = theirs[wanted]
        channels = self.dialect.selectors.get("code_model", {})
        if channels:
            params["code_model"] = next(iter(channels.values()))
        else:
            params.pop("code_model", None)

    # -- the server: the dialect's selector -> ours --------------------------------------

    def into(self, table: str, value: Any, *, field: str) -> int:
        """The dialect's selector ``value`` of ``table`` as our number for its meaning.

        Raises
        ------
        Refused
            Not a whole number, or no meaning of the dialect's (naming the allowed ones).
        """
        theirs = self._theirs.get(table, {})
        number = whole_number(value)
        meaning = theirs.get(number) if number is not None else None
        ours = _REFERENCE.get(table, {}).get(meaning) if meaning is not None else None
        if ours is None:
            raise Refused(f"params.{field}", f"must be one of {sorted(theirs)}, got {value!r}")
        return ours

    def auth_code_into(self, params: dict[str, Any]) -> None:
        """``/user/auth_code``'s selectors in our numbers (changed in place): a purpose
        becomes a send for that purpose, the dialect's verify a verify of any purpose."""
        if not self.purposes:
            for field in ("auth_model", "code_model"):
                if field in params:
                    params[field] = self.into(field, params[field], field=field)
            return
        theirs = self._theirs.get("auth_model", {})
        number = whole_number(params.get("auth_model"))
        meaning = theirs.get(number) if number is not None else None
        params.pop("code_model", None)  # the channel: SMS, the only one
        if meaning == _VERIFY:
            params["auth_model"] = _REFERENCE["auth_model"][_VERIFY]
            return
        purpose = _REFERENCE["code_model"].get(meaning) if meaning else None
        if purpose is None:
            offered = sorted(
                n for n, m in theirs.items() if m == _VERIFY or m in _REFERENCE["code_model"]
            )
            raise Refused(
                "params.auth_model",
                f"must be one of {offered} here, got {params.get('auth_model')!r}",
            )
        params["auth_model"] = _REFERENCE["auth_model"][_SEND]
        params["code_model"] = purpose

    def code_into(self, key: str, value: Any, *, field: str) -> Any:
        """A coded request value of the dialect's as ours (:attr:`Serving.codes_in
        <opslib.dialects.Serving.codes_in>`); unchanged where the dialect maps none.

        Raises
        ------
        Refused
            A code the dialect does not offer there.
        """
        table = self.dialect.serving.codes_in.get(key)
        if table is None:
            return value
        number = whole_number(value)
        if number is None or number not in table:
            raise Refused(f"params.{field}", f"must be one of {sorted(table)}, got {value!r}")
        return table[number]

    def code_out(self, key: str, value: Any) -> Any:
        """A coded answer value of ours as the dialect's (unchanged where none is mapped)."""
        table = self.dialect.serving.codes_out.get(key)
        if table is None or isinstance(value, bool) or not isinstance(value, int):
            return value
        return table.get(value, value)

    def filter_allowed(self, key: str) -> tuple[int, ...] | None:
        """The codes a read may filter ``key`` by, where the dialect allows fewer than it
        labels (``event_type`` 0 and 1 on the CHINT smart cloud)."""
        return self.dialect.filters.get(key)
