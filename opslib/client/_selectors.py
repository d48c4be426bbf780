"""Integer selectors and required parameters of a request, by the platform's dialect.

The resources write requests with our platform's selectors (``login_model`` 1 for a
password, :mod:`opslib.enums`); just before a request is encoded, :func:`translate` turns
each into the dialect's integer for the same meaning (the CHINT smart cloud's 0), fills the
required parameters it can from what the caller gave (``user_id`` is the caller, or the
user a record query selects), and raises before sending when one is still missing.

``/user/auth_code`` is the one selector that is not one-to-one: ours says send or verify
and ``code_model`` what the code is for; a dialect without a ``send`` meaning (CHINT)
names the purpose in ``auth_model`` itself (register 3, login 1, reset_password 4; verify
6) and ``code_model`` is the channel (SMS 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opslib.dialects import Dialect
from opslib.exceptions import Unsupported

__all__ = ["translate"]

# (path, field) -> the selectors table naming its meanings.
_SELECTED = {
    ("/user/login", "login_model"): "login_model",
    ("/user/update_pwd", "update_model"): "update_model",
    ("/user/query", "query_model"): "user_query_model",
    ("/user/query_sys_setting", "query_model"): "setting_query_model",
    ("/device/query_record", "query_model"): "record_query_model",
}
_REFERENCE = Dialect().selectors
# Filled when required and not given: from another parameter, else the caller's user_id.
_FILLED_FROM = {("/device/query_record", "user_id"): "user_id_param"}
# Sent under both names (2021 and 2026 readings of one parameter).
_ALSO = {("/device/query_record", "user_id_param"): "user_id"}


def _meaning(table: str, code: Any) -> str | None:
    for name, value in _REFERENCE.get(table, {}).items():
        if value == code:
            return name
    return None


def _translated(dialect: Dialect, path: str, table: str, field: str, code: Any) -> Any:
    meaning = _meaning(table, code)
    theirs = dialect.selectors.get(table, {})
    if meaning is None:
        return code
    if meaning not in theirs:
        raise Unsupported(
            f"{path}: this platform (dialect {dialect.name!r}) has no {field} for "
            f"{meaning!r}; it offers {sorted(theirs)}"
        )
    return theirs[meaning]


def _auth_code(dialect: Dialect, params: dict[str, Any]) -> None:
    theirs = dialect.selectors.get("auth_model", {})
    channels = dialect.selectors.get("code_model", {})
    action = _meaning("auth_model", params.get("auth_model"))
    purpose = _meaning("code_model", params.get("code_model"))
    if "send" in theirs:  # one-to-one, as ours
        for field in ("auth_model", "code_model"):
            if field in params:
                params[field] = _translated(dialect, "/user/auth_code", field, field, params[field])
        return
    wanted = "verify" if action == "verify" else purpose
    if wanted is None or wanted not in theirs:
        raise Unsupported(
            f"/user/auth_code: this platform (dialect {dialect.name!r}) has no auth_model "
            f"for {wanted!r}; it offers {sorted(theirs)}"
        )
    params["auth_model"] = theirs[wanted]
    if channels:
        params["code_model"] = next(iter(channels.values()))


def translate(dialect: Dialect, path: str, body: Mapping[str, Any]) -> Mapping[str, Any]:
    """The envelope ``body`` with its params in the dialect's selectors, required
    parameters filled or refused (``body`` itself when the dialect is ours).

    Raises
    ------
    ValueError
        A parameter the platform requires is missing and cannot be filled; nothing is sent.
    opslib.Unsupported
        A selector's meaning does not exist on the platform (a whole-fleet query).

    Examples
    --------
    >>> chint = Dialect.named("chint")
    >>> translate(chint, "/user/query", {"params": {"query_model": 1}})["params"]
    {'query_model': 0}
    >>> translate(chint, "/device/query", {"user_id": "u1", "params": {"device_id": "d1"}})
    {'user_id': 'u1', 'params': {'device_id': 'd1', 'user_id': 'u1'}}
    """
    if dialect.selectors == _REFERENCE and dialect.required == Dialect().required:
        return body
    params = dict(body.get("params") or {})
    if dialect.selectors != _REFERENCE:
        if path == "/user/auth_code":
            _auth_code(dialect, params)
        for (where, field), table in _SELECTED.items():
            if where == path and field in params:
                params[field] = _translated(dialect, path, table, field, params[field])
        for field in ("owned",):
            if field in params:
                params[field] = _translated(dialect, path, "owned", field, params[field])
    for (where, field), other in _ALSO.items():
        if where == path and field in params and other in dialect.required.get(path, ()):
            params.setdefault(other, params[field])
    missing = []
    for name in dialect.required.get(path, ()):
        if params.get(name) not in (None, ""):
            continue
        source = _FILLED_FROM.get((path, name))
        if source and params.get(source):
            params[name] = params[source]
        elif name == "user_id" and body.get("user_id"):
            params[name] = body["user_id"]
        else:
            missing.append(name)
    if missing:
        raise ValueError(
            f"{path}: the platform (dialect {dialect.name!r}) requires {', '.join(missing)}; "
            f"give {'it' if len(missing) == 1 else 'them'} (required there: "
            f"{', '.join(dialect.required[path])})"
        )
    return {**body, "params": params}
