"""The codec's server half: a request of the dialect into the core's terms, and the core's
answer back into the dialect.

opslib's own server keeps one core (``docs/protocol.md``); to speak another dialect
(``opslib server --dialect chint``) its edge decodes every request with
:meth:`ServingSide.decode_request` after the core's own guards (the body's size limit, the
JSON parser) and before its validation, and encodes every answer and failure with
:meth:`ServingSide.encode_answer` and :meth:`ServingSide.encode_failure`. Only fields the
operation declares are touched (:mod:`opslib.protocol.operations`), so a request the
dialect does not allow is refused naming the parameter, and anything else is left for the
core's validation to judge.

>>> from opslib.dialects import Dialect
>>> from opslib.protocol import Codec, operations as ops
>>> chint = Codec(Dialect.named("chint"))
>>> doc, served = chint.decode_request(
...     ops.QUERY_RECORD, {"user_id": "u1", "params": {"query_model": 1, "user_id": "u1",
...     "user_id_param": "u1", "page_size": 50, "page_no": 1}})
>>> doc["params"]["query_model"], served.page_size
(2, 50)
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from opslib.exceptions import ProtocolError
from opslib.protocol.meanings import Refused, whole_number
from opslib.protocol.operations import Operation

if TYPE_CHECKING:
    from opslib.dialects import Dialect
    from opslib.protocol.errors import ErrorCodec
    from opslib.protocol.meanings import Meanings
    from opslib.protocol.times import TimeCodec

__all__ = ["Served", "ServingSide", "scoped_openid"]

DEFAULT_PAGE_SIZE = 20  # the core's (protocol §9)
_FLEET_MEANING = "fleet"


@dataclass
class Served:
    """What one request said that its answer needs (its page, whether it read the fleet)."""

    message_id: str = ""
    caller: str = ""
    page_no: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    fleet: bool = False


def scoped_openid(user_id: str) -> str:
    """An app-scoped id for ``user_id``: stable, and never equal to it."""
    return "o_" + hashlib.sha256(f"openid|{user_id}".encode()).hexdigest()[:24]


class ServingSide:
    """The server's half of :class:`~opslib.protocol.codec.Codec` (same tables)."""

    dialect: Dialect
    times: TimeCodec
    errors: ErrorCodec
    meanings: Meanings
    plain: bool

    # -- requests ------------------------------------------------------------------------

    def decode_request(self, op: Operation, doc: Any) -> tuple[Any, Served]:
        """An envelope request of the dialect in the core's terms, and what its answer
        needs; a document that is not an envelope is left to the core to refuse.

        Raises
        ------
        Refused
            A parameter the dialect does not allow (a page past its cap, a selector or
            code it does not have, a required parameter missing), naming it.
        """
        served = Served()
        if not isinstance(doc, dict):
            return doc, served
        served.message_id = doc["message_id"] if isinstance(doc.get("message_id"), str) else ""
        served.caller = doc["user_id"] if isinstance(doc.get("user_id"), str) else ""
        params = doc.get("params")
        if not isinstance(params, dict):
            return doc, served
        params = dict(params)
        if op.paged is not None:
            self._page_in(params, served)
        if self.plain:
            served.fleet = self._fleet(op, params)
            return doc, served
        required = self.dialect.required.get(op.path, ())
        for name in required:
            if params.get(name) not in (None, ""):
                continue
            if name == "user_id" and served.caller:
                # the 2021 reference names the user in the envelope only; the 2026 lists
                # require it in params too: either is the caller
                params[name] = served.caller
                continue
            raise Refused(f"params.{name}", "required")
        for name, kind in op.params.items():
            number = whole_number(params.get(name))
            if kind == "str" and number is not None:
                params[name] = str(number)  # a string there; published examples give numbers
        if op.window and self.times.times.range_unit != "ms":
            for name in op.window:
                number = whole_number(params.get(name))
                if number is not None:
                    params[name] = self.times.window_in(number)
        if op.name == "auth_code":
            self.meanings.auth_code_into(params)
        elif not self.meanings.plain:
            for name, table in op.selectors.items():
                if params.get(name) is not None:
                    params[name] = self.meanings.into(table, params[name], field=name)
        self._aliases_in(op, params, served, required)
        for name, key in op.codes.items():
            if params.get(name) is None:
                continue
            allowed = self.meanings.filter_allowed(key) if op.safety == "read" else None
            if allowed is not None and whole_number(params[name]) not in allowed:
                raise Refused(f"params.{name}", f"must be one of {list(allowed)}")
            params[name] = self.meanings.code_into(key, params[name], field=name)
        if op.day_minutes and isinstance(params.get("message_config"), dict):
            params["message_config"] = self._day_minutes_in(op, params["message_config"])
        served.fleet = self._fleet(op, params)
        return {**doc, "params": params}, served

    def _page_in(self, params: dict[str, Any], served: Served) -> None:
        cap = self.dialect.paging.max_page_size
        size = whole_number(params.get("page_size"))
        if size is not None and size > cap and not self.plain:
            if self.dialect.serving.over_cap == "refuse":
                raise Refused("params.page_size", f"must be 1..{cap}, got {params['page_size']!r}")
            params["page_size"] = size = cap
        number = whole_number(params.get("page_no"))
        served.page_no = number if number is not None else 1
        served.page_size = size if size is not None and size > 0 else DEFAULT_PAGE_SIZE

    def _aliases_in(
        self, op: Operation, params: dict[str, Any], served: Served, required: tuple[str, ...]
    ) -> None:
        """Parameters a dialect requires that the core names otherwise: the 2021 reading's
        ``user_id`` selecting a user where ``user_id_param`` is absent (and dropped where it
        names the caller or the same user: both readings agree), and a ``caller_param``
        that is the caller itself (not a transfer)."""
        for alias, target in op.aliases.items():
            if alias not in required or alias not in params:
                continue
            if params.get(target) not in (None, ""):
                if params[alias] in (served.caller, params[target]):
                    params.pop(alias)  # the caller, or both names of the selected user
                continue
            meaning = self._mode(op, params)
            if meaning is not None and target in op.modes.get(meaning, ()):
                params[target] = params.pop(alias)
        name = op.caller_param
        if name and name in required and params.get(name) == served.caller:
            params.pop(name)

    def _mode(self, op: Operation, params: dict[str, Any]) -> str | None:
        if not op.modes:
            return None
        for name, table in op.selectors.items():
            return self.meanings.meaning_of(table, params.get(name))
        return None

    def _fleet(self, op: Operation, params: dict[str, Any]) -> bool:
        if not op.fleet:
            return False
        name, wanted = op.fleet
        if name in op.selectors:
            return self._mode(op, params) == _FLEET_MEANING
        return params.get(name) == wanted

    def _day_minutes_in(self, op: Operation, config: dict[str, Any]) -> dict[str, Any]:
        out = dict(config)
        for name in op.day_minutes:
            if out.get(name) is None:
                continue
            try:
                out[name] = self.times.day_minutes_in(out[name], field=name)
            except ProtocolError as exc:
                raise Refused(f"params.message_config.{name}", exc.expected) from None
        return out

    # -- answers -------------------------------------------------------------------------

    def encode_answer(self, op: Operation, doc: Any, served: Served) -> Any:
        """The core's success answer as the dialect writes it."""
        if self.plain:
            return doc
        serving = self.dialect.serving
        if isinstance(doc, str) and op.answer == "bare":
            if serving.writes == "bare":
                return doc
            doc = {"message_id": served.message_id, "data": None}
        if not isinstance(doc, dict):
            return doc
        out = {**doc, "error_code": self.errors.success_code}
        data = out.get("data")
        if isinstance(data, dict):
            self._data_out(op, data, served)
            if not data and serving.empty_data == "null":
                out["data"] = None
        return out

    def _data_out(self, op: Operation, data: dict[str, Any], served: Served) -> None:
        records = data.get(op.list_key) if op.list_key else None
        objects = [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []
        if not objects and not op.list_key:
            objects = [data]
        for obj in objects:
            self._record_out(op, obj)
        if op.day_minutes and isinstance(data.get("message_config"), dict):
            config = data["message_config"]
            for name in op.day_minutes:
                if isinstance(config.get(name), int):
                    config[name] = self.times.day_minutes_out(config[name])
        if op.paged is not None:
            data["page_size"] = served.page_size
            total = data.get("total")
            if self.dialect.paging.total == "pages" and isinstance(total, int):
                data["total"] = math.ceil(total / served.page_size)

    def _record_out(self, op: Operation, record: dict[str, Any]) -> None:
        serving = self.dialect.serving
        if not self.times.plain:
            for name in op.times:
                if name in record:
                    value = self.times.rewrite_text(record[name])
                    record[name] = serving.never if value is None else value
        for name, key in op.codes.items():
            if name in record:
                record[name] = self.meanings.code_out(key, record[name])
        if serving.secret_marker and op.secret and op.secret not in record:
            record[op.secret] = serving.secret_marker

    def encode_failure(
        self, op_path: str, status: int, message: str, served: Served, *, paged: Operation | None
    ) -> tuple[int, Any]:
        """A failure of the core (its HTTP status and sentence) as the dialect answers it:
        (HTTP status, body). ``paged`` is the operation when it is a paged read (a fleet
        read refused may be an empty page)."""
        if self.plain:
            body = {"error_code": status, "message_id": served.message_id, "error_msg": message}
            return status, {**body, "data": {}}
        if (
            status == 403
            and paged is not None
            and paged.paged is not None
            and served.fleet
            and self.dialect.capabilities.fleet_refusal == "empty"
        ):
            data = {
                "total": 0,
                "page_no": served.page_no,
                "page_size": served.page_size,
                paged.paged.list_key: [],
            }
            return 200, {
                "error_code": self.errors.success_code,
                "message_id": served.message_id,
                "data": data,
            }
        code = self.errors.served_code(status, op_path, message)
        return self.errors.failure(code, status, message, served.message_id)

    def encode_bare_failure(self, status: int, message: str) -> tuple[int, Any] | None:
        """A failed add or delete as a bare string, where the dialect answers so (a
        ``write_failures`` text for the failure's class); None: answer the envelope."""
        if self.plain or self.dialect.serving.writes != "bare":
            return None
        from opslib.protocol.errors import STATUS_CLASSES

        name = STATUS_CLASSES.get(status, "ServerError" if status >= 500 else "APIError")
        for needle, cls in self.dialect.errors.write_failures.items():
            if cls == name:
                return 200, (message if needle in message else f"{needle}: {message}")
        return None

    # -- the token call ------------------------------------------------------------------

    def token_sources(self) -> tuple[str, ...]:
        """Where the token call's parameters are read: ``"query"``, ``"form"`` or both
        (the reference platform takes either)."""
        if self.plain:
            return ("query", "form")
        return (self.dialect.token.params,)

    def encode_token_answer(self, doc: Any) -> Any:
        """The core's token pair as the dialect answers it."""
        if self.plain or not isinstance(doc, dict):
            return doc
        out = dict(doc)
        if self.dialect.serving.openid == "scoped":
            out["openid"] = scoped_openid(str(doc.get("openid") or ""))
        out["error_code"] = self.errors.success_code
        expires = out.get("expires_in")
        if self.dialect.token.expires_in_unit == "ms" and isinstance(expires, int):
            out["expires_in"] = expires * 1000
        return out

    def encode_token_failure(
        self, status: int, oauth: str | None, message: str, grant_type: str
    ) -> tuple[int, Any]:
        """A refused token call as the dialect answers it: (HTTP status, flat body)."""
        if self.plain:
            body = {"error_code": status, "error": oauth, "error_description": message}
            return status, body
        code = self.errors.served_token_code(status, oauth, grant_type)
        return self.errors.failure(code, status, message or f"HTTP {status}", None)
