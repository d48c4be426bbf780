"""Property-based fuzzing of every operation with Schemathesis, in-process (ASGI).

Schemathesis reads the platform's own OpenAPI document and generates valid and invalid
requests for all 19 operations. Authenticated operations get a real admin token (and the
matching envelope ``user_id``) whenever the generated ones are strings, so requests reach
the handlers, not only the token check. Every built-in check runs (no 5xx; statuses,
content types, headers and bodies as documented; schema-valid requests accepted and
schema-invalid ones refused; ``Allow`` on a 405; ...) and :func:`envelope_check` reads the
envelope: HTTP status == ``error_code``, never a 500, a failure carries a non-empty
``error_msg`` (or, on ``/token/access``, an OAuth ``error``) and no stack trace.

Two rules of the platform that JSON Schema cannot state are configured here, each
documented in the OpenAPI document and in protocol.md:

- a schema-valid request may still carry a wrong secret: the operations that verify one
  (SMS code, password, device secret) answer 422 (protocol §3), so for them 422 is among
  the statuses a valid request may get;
- ``/device/query_record`` needs ``start < end`` (its ``start`` says so): a generated
  "valid" request breaking that rule is not sent as a valid one.

Deterministic and bounded: ``derandomize=True``, no example database, a fixed example count.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import schemathesis
from cheap_passwords import CHEAP
from hypothesis import HealthCheck, assume, settings
from schemathesis.config import SchemathesisConfig
from server.factories import build_world
from server.helpers import Api, TestClient

from opslib.server import FakeClock, Settings, create_app, security

EXAMPLES = 100  # per operation; 19 operations
FAILURE_KEYS = {"error_code", "message_id", "error_msg", "data"}
TOKEN_FAILURE_KEYS = {"error_code", "error", "error_description"}


def envelope_check(ctx: Any, response: Any, case: Any) -> bool | None:
    """The protocol's envelope on every answer (protocol §2, §3)."""
    status = response.status_code
    assert status < 500, f"HTTP {status}: {response.content[:200]!r}"
    assert b"Traceback" not in response.content
    body = orjson.loads(response.content)
    path = case.operation.path
    if status == 200:
        if path in ("/product/add", "/product/delete"):
            assert isinstance(body, str)
        else:
            assert isinstance(body, dict)
            assert body["error_code"] == 200
        return None
    assert isinstance(body, dict), body
    assert body["error_code"] == status, body
    if path == "/token/access":
        assert set(body) == TOKEN_FAILURE_KEYS, body
        assert body["error"], body
        return None
    assert set(body) == FAILURE_KEYS, body
    assert isinstance(body["error_msg"], str)
    assert body["error_msg"], body
    allowed = {"retry_after"} if status == 429 else set()
    assert set(body["data"]) <= allowed, body
    return None


# Operations whose valid requests carry a secret the platform verifies (422 when wrong).
VERIFYING = r"^/(user/(auth_code|login|register|update_pwd)|device/bind)$"
CONFIG = f"""
[[operations]]
include-path-regex = "{VERIFYING}"
checks.positive_data_acceptance.expected-statuses = [
    "2xx", "401", "403", "404", "409", "422", "429"
]
"""


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, str]]:
    """The app over a small world, a cheap password hasher, no rate limit; an admin token."""
    with pytest.MonkeyPatch.context() as mp:
        # argon2 at full strength would make every generated login or register cost 50+ ms
        mp.setattr(security, "_hasher", CHEAP)
        clock = FakeClock()
        db = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
        world = build_world(db, now=clock.now_ms(), events_per_device=20)
        app = create_app(db, settings=Settings(rate_limit_per_s=0), clock=clock)
        with TestClient(app) as client:
            api = Api(client, world, clock)
            yield app, api.token("admin"), world["admin"].user_id


def _load_schema() -> Any:
    """The platform's OpenAPI document, read from an app over a throwaway database.

    Loaded at import so that every operation is a test of its own; the requests go to the
    module's app (``fuzz_app``), passed to each call.
    """
    config = SchemathesisConfig.from_str(CONFIG)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Path(tmp) / "s.db", docs=True)
        return schemathesis.openapi.from_asgi("/openapi.json", app, config=config)


schema = _load_schema()


def _authenticate(case: Any, token: str, user_id: str) -> None:
    """Put a real token (and its user_id) where the generated body has string ones.

    The body is replaced, not edited in place, so that Schemathesis re-validates it and
    knows whether the request it sends is still one the schema refuses.
    """
    body = case.body
    if not isinstance(body, dict) or case.operation.path == "/device/report":
        return
    params = body.get("params")
    if isinstance(params, dict) and isinstance(params.get("access_token"), str):
        new = {**body, "params": {**params, "access_token": token}}
        if isinstance(body.get("user_id"), str):
            new["user_id"] = user_id
        case.body = new


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_fuzz_every_operation(case: Any, fuzz_app: tuple[Any, str, str]) -> None:
    app, token, user_id = fuzz_app
    _authenticate(case, token, user_id)  # may make a request the schema refused a valid one
    assume(not _breaks_start_before_end(case))
    case.call_and_validate(app=app, additional_checks=[envelope_check])


def _breaks_start_before_end(case: Any) -> bool:
    """A request generated as valid whose start is not before its end (see the docstring)."""
    if case.operation.path != "/device/query_record" or not case.meta.generation.mode.is_positive:
        return False
    params = case.body.get("params") if isinstance(case.body, dict) else None
    if not isinstance(params, dict):
        return False
    start, end = params.get("start"), params.get("end")
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (start, end))
    return numbers and start >= end


def test_the_schema_covers_every_operation() -> None:
    paths = {op.ok().path for op in schema.get_all_operations()}
    assert len(paths) == 19


def test_every_check_of_schemathesis_runs() -> None:
    """No check is left out of the fuzzing above (``call_and_validate`` runs the enabled
    ones): every registered check is enabled for every operation."""
    from schemathesis.checks import CHECKS as REGISTERED
    from schemathesis.checks import load_all_checks

    load_all_checks()
    names = {check.__name__ for check in REGISTERED.get_all()}
    assert {"positive_data_acceptance", "negative_data_rejection", "unsupported_method"} <= names
    for operation in schema.get_all_operations():
        config = schema.config.checks_config_for(operation=operation.ok())
        assert all(getattr(config, name).enabled for name in names), operation.ok().label
