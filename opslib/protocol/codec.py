"""The codec: one platform's dialect applied to every request and answer, both ways.

A :class:`Codec` is built once from a :class:`~opslib.dialects.Dialect` and holds the
tables that dialect needs (times, selectors, codes, failures). The client encodes its
requests with it and decodes the answers (this module); opslib's own server decodes a
request of the dialect into its core's terms and encodes its core's answer back
(:mod:`opslib.protocol.serving`, the same object's other half).

What the client gets from :meth:`Codec.decode_answer` is the reference platform's model:
our selectors, epoch milliseconds for every ``gmt_*`` (or, for the records of a list
read, the platform's values, decoded a column at a time by the frame builder with
:meth:`TimeCodec.column_ms <opslib.protocol.times.TimeCodec.column_ms>`), minutes after
midnight for do-not-disturb times. Coded values (``event_type``, ``status``) keep the
platform's numbers; :meth:`Codec.labels` names them.

>>> from opslib.dialects import Dialect
>>> from opslib.protocol import operations as ops
>>> chint = Codec(Dialect.named("chint"))
>>> chint.encode_params(ops.LOGIN, {"login_model": 1, "area_code": "1", "phone": "5550000"},
...                     user_id="", client_id="app")["login_model"]
0
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any, Literal

from opslib import enums
from opslib.dialects import Dialect, Paging
from opslib.exceptions import ProtocolError
from opslib.protocol.errors import ErrorCodec
from opslib.protocol.meanings import Meanings, whole_number
from opslib.protocol.operations import QUERY_BY_USER, Operation
from opslib.protocol.serving import ServingSide
from opslib.protocol.times import MINUTES_PER_DAY, TimeCodec

__all__ = ["Codec", "Moments"]

_REFERENCE_REQUIRED = Dialect().required
Moments = Literal["ms", "raw"]


class Codec(ServingSide):
    """A dialect applied to the wire; immutable after it is made, shared by every thread.

    Parameters
    ----------
    dialect
        The platform's dialect (default: the reference platform's).
    """

    def __init__(self, dialect: Dialect | None = None) -> None:
        self.dialect = dialect if dialect is not None else Dialect()
        self.times = TimeCodec(self.dialect.times)
        self.errors = ErrorCodec(self.dialect)
        self.meanings = Meanings(self.dialect)
        self.plain = self.dialect == Dialect()
        """The reference platform's own dialect: requests and answers go as they are."""
        self._required_differ = dict(self.dialect.required) != dict(_REFERENCE_REQUIRED)

    def __repr__(self) -> str:
        return f"<Codec {self.dialect.name}>"

    # -- requests (the client) -----------------------------------------------------------

    def encode_params(
        self,
        op: Operation,
        params: Mapping[str, Any],
        *,
        user_id: str,
        client_id: str | None = None,
        validate: bool = False,
    ) -> dict[str, Any]:
        """An operation's params as the platform reads them (``params`` is not changed):
        types checked against the spec, the time window, do-not-disturb times and selectors
        in the dialect's units and numbers, the parameters it requires filled from the
        caller or refused. ``validate`` checks the required parameters under every
        dialect (a bulk write's items before the first is sent); otherwise the reference
        platform's are left for it to name.

        Raises
        ------
        ValueError
            A parameter of the wrong type, a filter the platform does not offer, or a
            required parameter missing; naming it and what is allowed. Nothing is sent.
        opslib.Unsupported
            A selector's meaning the platform does not have (a whole-fleet query).
        """
        out = {"client_id": client_id, **params} if op.client_id else dict(params)
        if validate:  # what is missing is named before what is mistyped
            self._fill_required(op, out, user_id)
        out = self.typed(op, out)
        path = op.path
        if op.day_minutes and isinstance(out.get("message_config"), Mapping):
            out["message_config"] = self._day_minutes_out(op, out["message_config"])
        if self.plain:
            return out
        if op.window and all(isinstance(out.get(k), int) for k in op.window):
            first, last = op.window
            out[first], out[last] = self.times.window_out(out[first], out[last])
        if op.name == "auth_code":
            self.meanings.auth_code_out(out, path=path)
        else:
            for name, table in op.selectors.items():
                if name in out:
                    out[name] = self.meanings.out(table, out[name], field=name, path=path)
        for name, key in op.codes.items():
            allowed = self.meanings.filter_allowed(key) if op.safety == "read" else None
            if allowed is not None and name in out and out[name] not in allowed:
                labels = self.dialect.enums.get(key, {})
                shown = ", ".join(f"{c} ({labels.get(c, '?')})" for c in allowed)
                raise ValueError(
                    f"{path}: {name} {out[name]!r} cannot be a filter on this platform "
                    f"(dialect {self.dialect.name!r}); allowed: {shown}"
                )
        if self._required_differ:
            self._fill_required(op, out, user_id)
        return out

    def typed(self, op: Operation, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` with each parameter the spec types as it types it (``"3"`` and ``3.0``
        for an integer are 3), else ValueError naming the parameter, its value (a secret
        masked) and what is allowed.

        >>> from opslib.protocol import operations as ops
        >>> Codec().typed(ops.ADD_PRODUCT, {"category_id": 2.0})
        {'category_id': 2}
        """
        out = dict(params)
        for name, kind in op.params.items():
            if out.get(name) is not None:
                out[name] = _typed(op.path, name, kind, out[name])
        return out

    def _day_minutes_out(self, op: Operation, config: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(config)
        for name in op.day_minutes:
            value = out.get(name)
            if value is None:
                continue
            minutes = whole_number(value)
            if minutes is None or not 0 <= minutes < MINUTES_PER_DAY:
                raise ValueError(
                    f"{op.path}: message_config.{name} must be minutes after midnight, "
                    f"0..{MINUTES_PER_DAY - 1}; got {value!r}"
                )
            out[name] = self.times.day_minutes_out(minutes)
        return out

    def _fill_required(self, op: Operation, out: dict[str, Any], user_id: str) -> None:
        """The dialect's required parameters: an alias takes its parameter's value (the
        2021 reference's ``user_id`` for the selected ``user_id_param``), ``user_id`` is
        otherwise the caller's; any other one missing is refused before sending."""
        required = self.dialect.required.get(op.path, ())
        missing = []
        for name in required:
            if out.get(name) not in (None, ""):
                continue
            target = op.aliases.get(name)
            if target and out.get(target) not in (None, ""):
                out[name] = out[target]  # the 2021 name of the selected user
            elif name == "user_id" and user_id:
                out[name] = user_id
            else:
                missing.append(name)
        if missing:
            raise ValueError(
                f"{op.path}: the platform (dialect {self.dialect.name!r}) requires "
                f"{', '.join(missing)}; give {'it' if len(missing) == 1 else 'them'} "
                f"(required there: {', '.join(required)})"
            )

    def envelope(
        self,
        op: Operation,
        params: Mapping[str, Any],
        *,
        message_id: str,
        user_id: str,
        access_token: Any = None,
        client_id: str | None = None,
    ) -> dict[str, Any]:
        """The request body of one attempt: ``message_id``, ``user_id`` and the encoded
        params, with the access token where the operation carries one."""
        body = self.encode_params(op, params, user_id=user_id, client_id=client_id)
        if access_token is not None:
            body["access_token"] = access_token
        return {"message_id": message_id, "user_id": user_id, "params": body}

    # -- answers (the client) ------------------------------------------------------------

    def decode_answer(
        self,
        op: Operation,
        status: int,
        body: Any,
        *,
        sent: Mapping[str, Any],
        moments: Moments = "ms",
    ) -> Any:
        """A success answer's content in the reference platform's model, else None (the
        caller raises :meth:`ErrorCodec.error <opslib.protocol.errors.ErrorCodec.error>`).

        ``sent`` is the params as sent (an add's product_id); ``moments`` ``"ms"`` turns
        every ``gmt_*`` of the data into epoch milliseconds, ``"raw"`` leaves those of a
        list's records to the frame builder.

        Raises
        ------
        opslib.ProtocolError
            A success whose content the operation does not allow: ``data`` that is not an
            object (or null where nothing is returned), a list that is not a list, a
            moment in the wrong unit, an add answered with another product's id.
        """
        if op.answer == "bare":
            return self._bare(op, status, body, sent)
        if not self.errors.is_success(status, body):
            return None
        data = body.get("data")
        if data is None or data == {}:
            if op.list_key or op.schema:
                raise ProtocolError(
                    operation=op.path,
                    field="data",
                    value=data,
                    expected=f"an object holding {op.list_key or 'the ' + op.schema}",
                )
            return {}
        if not isinstance(data, dict):
            raise ProtocolError(
                operation=op.path, field="data", value=data, expected="an object (or null)"
            )
        if op.list_key and not isinstance(data.get(op.list_key), list):
            raise ProtocolError(
                operation=op.path,
                field=f"data.{op.list_key}",
                value=data.get(op.list_key),
                expected="a list",
            )
        if op.day_minutes and isinstance(data.get("message_config"), dict):
            config = data["message_config"]
            for name in op.day_minutes:
                if config.get(name) is not None:
                    config[name] = self.times.day_minutes_in(
                        config[name], field=f"data.message_config.{name}", operation=op.path
                    )
        if moments == "raw":
            return data
        for name in op.times:
            if name in data:
                data[name] = self.times.ms(data[name], field=f"data.{name}", operation=op.path)
        if op.list_key:
            for name in op.times:
                records = [r for r in data[op.list_key] if isinstance(r, dict) and name in r]
                values = self.times.column_ms(
                    [r[name] for r in records], field=f"{op.list_key}[].{name}", operation=op.path
                )
                for record, value in zip(records, values, strict=True):
                    record[name] = value
        return data

    def _bare(self, op: Operation, status: int, body: Any, sent: Mapping[str, Any]) -> Any:
        """Add and delete: the spec's bare string, or the envelope some platforms answer
        with; the text the spec promises on success (the product_id, ``"success"``)."""
        expected = self.dialect.errors.write_success.get(op.path, "")
        try:
            wanted = expected.format(**{k: str(v) for k, v in sent.items()})
        except (KeyError, IndexError, ValueError):
            wanted = expected
        if status == 200 and isinstance(body, str):
            return self.errors.bare(op.path, sent, body, status)
        if not self.errors.is_success(status, body):
            return None
        data = body.get("data")
        if data in (None, {}, "") or data == wanted:
            return wanted
        raise ProtocolError(
            operation=op.path,
            field="data",
            value=data,
            expected=f"null or {wanted!r} (what the write promises on success)",
        )

    # -- what the platform offers, for the client's resources ---------------------------

    @property
    def name(self) -> str:
        """The dialect's name, for messages."""
        return self.dialect.name

    @property
    def paging(self) -> Paging:
        """How the platform pages (its largest page, what ``total`` counts)."""
        return self.dialect.paging

    @property
    def fleet_events(self) -> bool:
        """Whether ``/device/query_record`` reads a whole fleet on this platform."""
        return self.dialect.capabilities.fleet_events

    @property
    def secrets(self) -> frozenset[str]:
        """The fields the platform treats as secret (left out of frames by default)."""
        return self.dialect.secrets

    @property
    def token_in_query(self) -> bool:
        """Whether the token call's parameters go in the query string (else a form)."""
        return self.dialect.token.params == "query"

    @property
    def lists_fleet(self) -> bool:
        """Whether the platform reads a whole fleet: events with no device or user, and
        devices with no user (else a read names its users)."""
        return self.fleet_events and not self.requires(QUERY_BY_USER, "user_id")

    def requires(self, op: Operation, name: str) -> bool:
        """Whether the platform requires parameter ``name`` of ``op``."""
        return name in self.dialect.required.get(op.path, ())

    def login_user_id(self, data: Mapping[str, Any]) -> Any:
        """The user_id in a login or register answer's ``data`` (the dialect's field)."""
        return data.get(self.dialect.token.user_id_field)

    def event_kinds(self) -> dict[str, dict[int, str]]:
        """The platform's event kinds and labels, as an events frame carries them."""
        return {
            "kinds": dict(self.dialect.event_kinds),
            "labels": dict(self.labels("event_type", enums.EventType)),
        }

    # -- names of codes ------------------------------------------------------------------

    def labels(self, key: str, enum: type[IntEnum] | None = None) -> Mapping[int, str]:
        """The platform's labels of a coded field (``"event_type"``, ``"device_status"``):
        the dialect's, else ``enum``'s (ours).

        >>> Codec().labels("event_type")[4]
        'alarm'
        """
        found = self.dialect.enums.get(key)
        if found is not None:
            return found
        return enums.labels(enum) if enum is not None else {}

    def filter_codes(self, key: str, enum: type[IntEnum] | None = None) -> tuple[int, ...]:
        """The codes a read may filter ``key`` by: the dialect's filters where it names
        fewer (``event_type`` 0 and 1 on the CHINT smart cloud), else every labelled code.

        >>> Codec(Dialect.named("chint")).filter_codes("event_type")
        (0, 1)
        """
        allowed = self.meanings.filter_allowed(key)
        return allowed if allowed is not None else tuple(self.labels(key, enum))

    def code_of(
        self, value: int | str | IntEnum, key: str, enum: type[IntEnum] | None, field: str
    ) -> int:
        """The platform's code for a value given as its code or its label (``"Wi-Fi"``).

        Raises
        ------
        ValueError
            Naming the field and the allowed values.

        Examples
        --------
        >>> Codec(Dialect.named("chint")).code_of("Wi-Fi", "net_type", None, "net_type")
        0
        """
        labels = self.dialect.enums.get(key, {}) if enum is None else self.labels(key, enum)
        if isinstance(value, IntEnum) and (enum is None or dict(labels) != enums.labels(enum)):
            value = getattr(value, "label", value.name.lower())
        if isinstance(value, int) and not isinstance(value, bool) and int(value) in labels:
            return int(value)
        if isinstance(value, str):
            wanted = value.strip().lower().replace("_", " ")
            if wanted.isdigit() and int(wanted) in labels:
                return int(wanted)
            for code, label in labels.items():
                if wanted == label.lower().replace("_", " "):
                    return int(code)
        allowed = ", ".join(f"{code} ({label})" for code, label in labels.items())
        raise ValueError(f"{field} must be one of {allowed}; got {value!r}")

    def vendor_type_code(self, value: int | str) -> int:
        """A product's vendor_type as the platform's code: its label where the dialect
        names vendor types (the CHINT smart cloud: 0 in-house, 1 partner ecosystem), else
        the integer itself (ours: the operator's own classes, checked by the platform).

        >>> Codec(Dialect.named("chint")).vendor_type_code("partner ecosystem")
        1
        >>> Codec().vendor_type_code(42)
        42
        """
        if "vendor_type" in self.dialect.enums:
            return self.code_of(value, "vendor_type", None, "vendor_type")
        if isinstance(value, int) and not isinstance(value, bool):
            return int(value)
        if isinstance(value, str) and value.strip().isdigit():
            return int(value.strip())
        raise ValueError(
            f"vendor_type must be an integer (the {self.dialect.name} platform names no vendor "
            f"types, its classes are the operator's own); got {value!r}"
        )


_KINDS = {
    "str": "a string",
    "int": "an integer",
    "bool": "true or false",
    "object": "an object",
}


def _typed(path: str, name: str, kind: str, value: Any) -> Any:
    """A parameter as the spec types it: whole numbers for integers (``"3"`` and ``3.0``
    included; never a boolean), text for strings, true/false for booleans."""
    if kind == "int":
        if type(value) is int:  # the usual case: as it is
            return value
        number = whole_number(value)
        if number is None and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value.strip())
        if number is None and type(value).__name__.startswith(("int", "uint")):
            number = int(value)  # a numpy integer from a frame
        if number is not None:
            return number
    elif kind == "str":
        if isinstance(value, str) or hasattr(value, "get_secret_value"):
            return value
    elif kind == "bool":
        if isinstance(value, bool) or type(value).__name__ == "bool_":  # numpy's too
            return bool(value)
    elif kind != "object" or isinstance(value, Mapping):
        return value
    shown = "***" if hasattr(value, "get_secret_value") else repr(value)
    raise ValueError(f"{path}: {name} is {shown} ({type(value).__name__}); allowed: {_KINDS[kind]}")
