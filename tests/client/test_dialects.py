"""Why dialects matter, one test a reason: the client against a platform that decides the
spec's open points unlike ours (``opslib server --dialect vendor`` over the same seed),
read through its dialect, gives what the reference platform gives, or raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pandas as pd
import pytest

import opslib
from client.clocks import Clocks
from client.faults import Faults
from client.test_tokens import on_clock, refreshes
from opslib import Dialect

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

WINDOW = ("-30d", "now")
# Ours but for the token's lifetime in ms: logs in to the vendor, knows none of its codes.
OURS_IN_MS = Dialect.named("opslib").replace(token={"expires_in_unit": "ms"})


@pytest.fixture
def vendor(platform_factory: Callable[..., ServedPlatform]) -> ServedPlatform:
    return platform_factory(dialect="vendor")


def test_login_sends_the_token_call_in_the_query_string(vendor: ServedPlatform) -> None:
    # Before: the form body a query-only platform never reads made connect() raise.
    client = opslib.connect(vendor.base_url, dialect=OURS_IN_MS, **vendor.credentials())
    assert client.user_id
    assert client.users.get()["phone"].item() == vendor.ops_phone


def test_a_platform_of_another_dialect_read_as_ours_is_refused_at_login(
    vendor: ServedPlatform,
) -> None:
    # Before: the login passed, and a week of events read as none: the platform took our
    # milliseconds for seconds, a window thousands of years ahead. Its two-hour token's
    # 7,200,000 ms, read as seconds, tells the dialects apart before any read.
    with pytest.raises(opslib.ProtocolError) as raised:
        opslib.connect(vendor.base_url, **vendor.credentials())  # no dialect given
    assert (raised.value.operation, raised.value.field) == ("/token/access", "expires_in")
    assert raised.value.value == 7_200_000
    assert "`opslib probe URL` names it" in str(raised.value)


def test_the_user_id_is_the_login_answers_and_openid_is_kept_apart(vendor: ServedPlatform) -> None:
    # Before: the app-scoped openid went into every envelope; users.get() found nobody.
    client = vendor.connect()
    me = client.users.get()
    assert client.user_id == me["user_id"].item()
    tokens = client._session.tokens.tokens
    assert tokens is not None
    assert tokens.openid.startswith("o_")
    assert tokens.openid != client.user_id


@pytest.mark.parametrize(
    "dialect",
    [
        Dialect.named("vendor"),
        # a dialect that does not know the cap: the short first page reveals it
        Dialect.named("vendor").replace(paging={"max_page_size": 1000}),
    ],
    ids=["cap-known", "cap-found"],
)
def test_a_capped_page_size_truncates_nothing(
    platform: ServedPlatform, vendor: ServedPlatform, dialect: Dialect
) -> None:
    # Before: 100 of 1,567 events, 100 of 230 devices, no warning.
    reference = platform.connect()
    client = vendor.connect(dialect=dialect)
    want = reference.events.list(*WINDOW)
    assert len(want) > 100
    got = client.events.list(*WINDOW)
    assert got["event_id"].tolist() == want["event_id"].tolist()
    assert got.attrs["total"] == want.attrs["total"]
    assert sum(len(p) for p in client.events.iter_pages(*WINDOW)) == len(want)
    fleet = client.devices.list()
    assert fleet["device_id"].tolist() == reference.devices.list()["device_id"].tolist()


def test_a_total_counting_pages_is_read_as_pages(
    platform: ServedPlatform, vendor: ServedPlatform
) -> None:
    # vendor's total counts pages; read as records, it ended the read after page 1.
    assert Dialect.named("vendor").paging.total == "pages"
    want = platform.connect().events.list(*WINDOW, page_size=50)
    got = vendor.connect().events.list(*WINDOW, page_size=50)
    assert len(got) == len(want) > 100
    assert got.attrs["total"] == len(want)


def test_start_and_end_in_seconds_find_the_events(
    platform: ServedPlatform, vendor: ServedPlatform
) -> None:
    # Before: epoch ms read as seconds, a window thousands of years ahead: every read empty.
    start, end = pd.Timestamp.now("UTC") - pd.Timedelta(days=30), pd.Timestamp.now("UTC")
    start, end = start.floor("s"), end.floor("s")
    want = platform.connect().events.list(start, end)
    faults = Faults()
    got = vendor.connect(transport=faults).events.list(start, end)
    assert len(want) > 0
    assert got["event_id"].tolist() == want["event_id"].tolist()
    sent = faults.to("/device/query_record")[-1].body
    assert sent is not None
    assert sent["params"]["start"] == start.value // 1_000_000_000


@pytest.mark.parametrize("dialect", ["vendor-epoch", "vendor-local", "vendor"])
def test_times_of_any_format_and_zone_are_utc(
    platform: ServedPlatform, platform_factory: Callable[..., ServedPlatform], dialect: str
) -> None:
    # Before: epoch-ms strings raised ValueError building the frame; a zone-less local
    # time (UTC+8) was read as UTC, 8 hours off.
    other = platform_factory(dialect=dialect)
    reference, client = platform.connect(), other.connect()
    for column in ("gmt_bind", "gmt_last_seen"):
        want = reference.devices.list()[column]
        got = client.devices.list()[column]
        assert str(got.dtype) == "datetime64[ns, UTC]"
        assert got.tolist() == want.tolist()
    want_user = reference.users.get(area_code="1", phone=platform.user_phone)
    got_user = client.users.get(area_code="1", phone=platform.user_phone)
    assert got_user["gmt_register"].item() == want_user["gmt_register"].item()


def test_failures_in_the_body_raise_their_class_code_and_message(vendor: ServedPlatform) -> None:
    # Before: every one was ServerError "HTTP 200 with a body that is not platform JSON".
    client = vendor.connect()
    with pytest.raises(opslib.NotFound) as missing:
        client.devices.get("no-such-device")
    assert missing.value.code == 10005
    assert "device" in missing.value.error_msg
    with pytest.raises(opslib.VerificationFailed) as wrong:
        vendor.connect(password="not-the-password")
    assert wrong.value.code == 10007


def test_an_error_body_is_never_data_under_any_dialect(vendor: ServedPlatform) -> None:
    # A client that does not know the vendor's codes still raises, with its code and text.
    client = opslib.connect(vendor.base_url, dialect=OURS_IN_MS, **vendor.credentials())
    with pytest.raises(opslib.APIError) as info:
        client.devices.get("no-such-device")
    assert info.value.code == 10005
    assert "device" in info.value.error_msg


def test_a_token_expired_code_refreshes_once(
    platform_factory: Callable[..., ServedPlatform], clocks: Clocks
) -> None:
    hour = platform_factory(dialect="vendor", access_token_ttl_s=3600)
    faults = Faults()
    client = on_clock(hour, clocks, faults)
    clocks.platform.advance(seconds=3601)  # the platform knows the token expired
    assert len(client.users.get()) == 1
    assert refreshes(faults) == 1
    assert faults.count("/user/query") == 2


def test_a_refused_refresh_code_falls_back_to_a_login(
    platform_factory: Callable[..., ServedPlatform], clocks: Clocks
) -> None:
    # vendor refuses a refresh token with its code 10012, no OAuth "error: invalid_grant"
    short = platform_factory(dialect="vendor", access_token_ttl_s=1, refresh_token_ttl_s=1)
    faults = Faults()
    client = on_clock(short, clocks, faults)
    clocks.advance(1.5)
    assert len(client.devices.list(limit=5)) == 5
    assert faults.count("/user/login") == 2
    assert refreshes(faults) >= 1


def test_bare_string_failures_of_add_and_delete_are_failures(vendor: ServedPlatform) -> None:
    # Before: ok=True, product_id="product_id already exists"; a missing delete ok=True.
    admin = vendor.connect("admin")
    existing = admin.products.list(1).iloc[0]
    duplicate = {
        "product_id": existing["product_id"],
        "product_secret": "s3cret-s3cret",
        "product_name": "again",
        "category_id": 1,
        "net_type": "Wi-Fi",
        "node_type": "direct",
    }
    with pytest.raises(opslib.Conflict, match="already exists"):
        admin.products.add(duplicate)
    df = admin.products.delete(["p-never-was"], errors="collect")
    assert df["ok"].tolist() == [False]
    assert df["error_code"].tolist() == [10005]
    with pytest.raises(opslib.NotFound):
        admin.products.delete("p-never-was")
    ok = admin.products.add({**duplicate, "product_id": "p-dialect-1"})
    assert ok["ok"].tolist() == [True]
    assert ok["product_id"].tolist() == ["p-dialect-1"]


def test_an_empty_fleet_answer_is_not_permission(
    platform: ServedPlatform, vendor: ServedPlatform
) -> None:
    # vendor answers a plain user's fleet read with an empty success: before, 0 devices.
    want = platform.connect("user").devices.list()
    got = vendor.connect("user").devices.list()
    assert len(want) > 0
    assert got["device_id"].tolist() == want["device_id"].tolist()
    events = vendor.connect("user").events.list(*WINDOW)
    assert len(events) == len(platform.connect("user").events.list(*WINDOW))


def test_expires_in_in_milliseconds_is_read_as_seconds(vendor: ServedPlatform) -> None:
    # Before: 7,200,000 "seconds": no refresh ahead of expiry.
    client = vendor.connect()
    tokens = client._session.tokens.tokens
    assert tokens is not None
    assert tokens.expires_in == 7200
    assert client.auth.refresh()["expires_in"].item() == 7200
