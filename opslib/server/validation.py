"""Turn a pydantic validation error into the protocol's one-sentence ``error_msg``.

The sentence names the field as a dotted path (``params.page_size``, ``message_id``,
``body``) and says what is wrong and what is allowed, without echoing string values (a
string may be a password).
"""

from __future__ import annotations

from typing import Any

import annotated_types
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from opslib.server.fields import PATTERN_HINTS

__all__ = ["describe_error"]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _field_info(model: type[BaseModel], loc: tuple[int | str, ...]) -> Any:
    """The FieldInfo at ``loc`` inside ``model``, or None when not a plain model path."""
    current: Any = model
    info = None
    for part in loc:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(str(part))
        if info is None:
            return None
        current = info.annotation
        args = getattr(current, "__args__", ())
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if models:  # Optional[Model]
            current = models[0]
    return info


def _bounds(model: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[Any, Any]:
    info = _field_info(model, loc)
    lower = upper = None
    for meta in getattr(info, "metadata", []):
        if isinstance(meta, annotated_types.Ge):
            lower = meta.ge
        if isinstance(meta, annotated_types.Le):
            upper = meta.le
    return lower, upper


def _reason(error: ErrorDetails, model: type[BaseModel]) -> str:
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return "required"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "string_type":
        return f"must be a string, got {_json_type(value)}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"must be an integer, got {_json_type(value)}"
    if kind == "bool_type":
        return f"must be true or false, got {_json_type(value)}"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"must be an object, got {_json_type(value)}"
    if kind == "list_type":
        return f"must be an array, got {_json_type(value)}"
    if kind == "string_too_short":
        if value == "":
            return "must not be empty"
        return f"must be at least {ctx['min_length']} characters, got {len(value)}"
    if kind == "string_too_long":
        return f"must be at most {ctx['max_length']} characters, got {len(value)}"
    if kind == "string_pattern_mismatch":
        pattern = str(ctx.get("pattern", ""))
        return f"must be {PATTERN_HINTS.get(pattern, 'text matching ' + pattern)}"
    if kind in ("greater_than_equal", "less_than_equal"):
        lower, upper = _bounds(model, tuple(error["loc"]))
        if lower is not None and upper is not None:
            return f"must be between {lower} and {upper}, got {value}"
        bound = ctx.get("ge", ctx.get("le"))
        return f"must be {'at least' if kind == 'greater_than_equal' else 'at most'} {bound}"
    if kind in ("too_short", "too_long"):
        size = len(value) if isinstance(value, list) else "?"
        return f"must hold 1 to 500 items, got {size}"
    return str(error.get("msg", "invalid value"))


def describe_error(exc: ValidationError, model: type[BaseModel]) -> str:
    """The ``error_msg`` for the first error of ``exc``.

    Parameters
    ----------
    exc
        A validation error of ``model``.
    model
        The request model that was validated (for the bounds of a numeric field).

    Returns
    -------
    str
        ``"<field>: <reason>"``.

    Examples
    --------
    >>> from pydantic import ValidationError
    >>> from opslib.server.models import QueryByUserRequest
    >>> try:
    ...     QueryByUserRequest.model_validate_json(
    ...         '{"message_id": "123e4567-e89b-12d3-a456-426614174000", "user_id": "u",'
    ...         ' "params": {"access_token": "t", "page_size": 5000}}')
    ... except ValidationError as exc:
    ...     print(describe_error(exc, QueryByUserRequest))
    params.page_size: must be between 1 and 1000, got 5000
    """
    error = exc.errors(include_url=False)[0]
    if error["type"] == "json_invalid":
        reason = (error.get("ctx") or {}).get("error")
        return f"body: malformed JSON ({reason})" if reason else "body: malformed JSON"
    loc = [str(part) for part in error["loc"]]
    ctx = error.get("ctx") or {}
    if "field" in ctx:  # a model validator naming one field of its model
        loc.append(str(ctx["field"]))
    if error["type"] == "model_type" and not loc:
        return f"body: must be a JSON object, got {_json_type(error.get('input'))}"
    field = ".".join(loc) if loc else "body"
    return f"{field}: {_reason(error, model)}"
