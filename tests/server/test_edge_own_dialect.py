"""A dialect defined only here is served by the platform and read by the client, with no
change to either: the server's edge and the client both read the dialect through the
codec, so any dialect a profile can write is one they both speak.

Also: whatever JSON arrives, the edge's decoding under every dialect ends in the request
the core validates or in a 400 naming what is wrong, never in another exception (a 500).
"""

from __future__ import annotations

import doctest
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import orjson
import pandas as pd
import pytest
from conftest import _copy_db, _demo_fields
from hypothesis import given, settings
from hypothesis import strategies as st

import opslib
from opslib.dialects import Dialect
from opslib.protocol import Codec
from opslib.protocol import operations as ops
from opslib.server import wire
from opslib.server.errors import ApiError
from opslib.server.runner import start_in_thread
from opslib.server.seed import dialect as seed_dialect

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform as PlatformType

# A platform nobody ships: failures in the body with codes of its own and the sentence in
# "message", success 0, gmt_* in epoch seconds, start/end in seconds, pages of at most 50,
# a total that counts pages, a fleet read refused with an empty page.
TEST_DIALECT = Dialect.named("opslib").replace(
    name="test",
    errors={
        "signalling": "body",
        "message_fields": ("message",),
        "codes": {
            90400: "BadRequest",
            90401: "AuthenticationError",
            90403: "PermissionDenied",
            90404: "NotFound",
            90409: "Conflict",
            90413: "PayloadTooLarge",
            90422: "VerificationFailed",
            90429: "RateLimited",
            90500: "ServerError",
        },
        "success_codes": frozenset({0}),
        "token_expired_codes": frozenset({90401}),
    },
    times={"gmt_format": "epoch_s", "range_unit": "s"},
    paging={"max_page_size": 50, "total": "pages"},
    capabilities={"fleet_refusal": "empty"},
)


@pytest.fixture(scope="module")
def pair(
    seeded_db: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[PlatformType, PlatformType]]:
    """Our platform and the test dialect's, each over its own copy of one database."""
    from conftest import ServedPlatform

    base = tmp_path_factory.mktemp("own-dialect")
    started = []
    for name, dialect in (("opslib", None), ("test", TEST_DIALECT)):
        db = base / f"{name}.db"
        _copy_db(seeded_db, db)
        url, stop = start_in_thread(db, dialect=dialect)
        started.append(ServedPlatform(base_url=url, db=db, stop=stop, **_demo_fields()))
    yield started[0], started[1]
    for running in started:
        running.stop()


def test_a_dialect_of_the_tests_own_is_served_and_read(
    pair: tuple[PlatformType, PlatformType],
) -> None:
    ours_platform, theirs_platform = pair
    ours = ours_platform.connect("ops")
    theirs = theirs_platform.connect("ops", dialect=TEST_DIALECT)
    end = pd.Timestamp("2100-01-01", tz="UTC")
    mine = ours.events.list("2000-01-01", end)
    got = theirs.events.list("2000-01-01", end)
    assert len(mine) > 50  # more than one page of the test dialect's
    assert got["event_id"].tolist() == mine["event_id"].tolist()
    assert got["gmt_create"].equals(mine["gmt_create"])  # epoch seconds on the wire
    owners = mine["user_id"].dropna().drop_duplicates().head(3).tolist()
    devices = theirs.devices.list(users=owners)
    assert devices["device_id"].tolist() == ours.devices.list(users=owners)["device_id"].tolist()
    with pytest.raises(opslib.NotFound) as info:
        theirs.devices.get("no-such-device")
    assert info.value.code == 90404


def test_its_wire_is_its_own(pair: tuple[PlatformType, PlatformType]) -> None:
    _, theirs_platform = pair
    client = theirs_platform.connect("ops", dialect=TEST_DIALECT)
    token = client._session.tokens.access_token()
    base = theirs_platform.base_url

    def post(path: str, params: dict[str, Any]) -> Any:
        body = {"message_id": str(uuid.uuid4()), "user_id": client.user_id,
                "params": {**params, "access_token": token}}  # fmt: skip
        answer = httpx.post(f"{base}{path}", json=body)
        assert answer.status_code == 200
        return answer.json()

    page = post(ops.QUERY_RECORD.path, {"query_model": 3, "start": 0, "end": 4_102_444_800,
                                         "page_size": 500})  # fmt: skip
    assert page["error_code"] == 0
    data = page["data"]
    assert data["page_size"] == 50 == len(data["events_list"])
    assert isinstance(data["events_list"][0]["gmt_create"], int)
    assert data["events_list"][0]["gmt_create"] < 10**11  # seconds
    refused = post(ops.DEVICE_QUERY.path, {"device_id": "no-such-device"})
    assert refused["error_code"] == 90404
    assert refused["message"].startswith("params.device_id")
    assert refused["data"] is None


# -- no body ends in another exception than a 400 --------------------------------------------

_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
_NAMES = st.sampled_from(
    sorted({name for op in ops.OPERATIONS for name in op.params} | {"message_config", "x"})
)
_JSON = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_NAMES, inner, max_size=6),
    max_leaves=20,
)
_ENVELOPES = st.fixed_dictionaries(
    {"message_id": st.uuids().map(str), "user_id": st.text(max_size=4)},
    optional={"params": st.dictionaries(_NAMES, _JSON, max_size=8) | _JSON},
)


@pytest.mark.parametrize("name", [*Dialect.names(), "test"])
@settings(max_examples=100, derandomize=True, database=None, deadline=None)
@given(doc=_ENVELOPES | _JSON, op=st.sampled_from(ops.OPERATIONS))
def test_decoding_any_json_ends_in_the_core_or_a_400(name: str, doc: Any, op: Any) -> None:
    dialect = TEST_DIALECT if name == "test" else Dialect.named(name)
    refusal = None
    try:
        body, _ = wire.decode_body(Codec(dialect), op, orjson.dumps(doc))
    except ApiError as exc:
        refusal = exc
    if refusal is None:
        assert isinstance(orjson.loads(body), type(doc))
    else:
        assert refusal.status == 400
        assert refusal.message.split(":")[0].startswith(("params", "body"))


@pytest.mark.parametrize("module", [wire, seed_dialect])
def test_the_modules_examples_hold(module: Any) -> None:
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried
    assert not failures
