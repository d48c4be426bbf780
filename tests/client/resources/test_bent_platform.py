"""A platform that bends the rules: never a silent wrong number.

The real platform (in each dialect it speaks) behind a transport that rewrites its answers
(:mod:`client.bent`), the way platforms were found to break the interface's rules. Each
case was a silently wrong result: a read of 13 devices returning 5 or 10 of them, an
empty frame for a broken answer, a product id "ok", an SMS quota spent on retries. Now
each raises an error naming what is wrong, or reports it as a failed row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

import opslib
import opslib.protocol
from client import bent
from client.faults import Faults, Sent
from client.resources.dialected import dialect
from client.resources.test_products import new_product

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

DEVICES = "/device/query_by_user"
RECORDS = "/device/query_record"
ADD = "/product/add"
SMS = "/user/auth_code"
PAGE = 5  # the user's devices are 3 pages (13 devices: 5, 5 and 3)


def devices(user: opslib.Client, **kw: Any) -> pd.DataFrame:
    return user.devices.list(user.user_id, page_size=PAGE, **kw)


def events(user: opslib.Client, **kw: Any) -> pd.DataFrame:
    return user.events.list("-3650d", end="2100-01-01", user_id=user.user_id, page_size=PAGE, **kw)


READS: dict[str, tuple[str, Callable[..., pd.DataFrame]]] = {
    "devices": (DEVICES, devices),
    "events": (RECORDS, events),
}


def bent_user(platform: ServedPlatform, faults: Faults) -> opslib.Client:
    user = platform.connect("user", transport=faults)
    user._session.http.sleep = lambda seconds: None  # retries do not wait here
    return user


def test_the_user_has_3_pages_of_devices(fresh_platform: ServedPlatform) -> None:
    """What the cases below read when the platform keeps the rules: the seed binds 11 to
    15 devices to the user (the shared platform's other tests bind and unbind some)."""
    user = fresh_platform.connect("user")
    df = devices(user)
    assert len(df) == df.attrs["total"]
    assert 10 < len(df) <= 15
    pages = user.devices.iter_pages(user.user_id, page_size=PAGE)
    assert [len(p) for p in pages] == [5, 5, len(df) - 10]
    assert len(events(user)) > 2 * PAGE


# -- 1. total missing, null, negative, not an integer -------------------------------------


@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("value", [bent.DROP, None, -1, True, "13"], ids=repr)
def test_a_total_that_is_not_a_count_raises(
    platform: ServedPlatform, read: str, value: Any
) -> None:
    """Before: a total missing, null or negative read as 0 and the read returned the first
    page only (5 of 13 devices), without an error."""
    path, list_read = READS[read]
    faults = Faults()
    bent.bend(faults, path, bent.total(value))
    with pytest.raises(opslib.ProtocolError) as info:
        list_read(bent_user(platform, faults))
    error = info.value
    assert (error.operation, error.field) == (path, "data.total")
    assert error.value == (None if value is bent.DROP else value)
    assert "data.total" in str(error)
    assert "non-negative integer" in str(error)


# -- 2. more rows than the total -----------------------------------------------------------


@pytest.mark.dialects(lambda d: d.paging.total != "pages")  # pages: checked below
@pytest.mark.parametrize(
    ("bend", "page_size"),
    [(bent.total_counts_pages(), 10), (bent.understated(5), PAGE)],
    ids=["total counts pages", "total too low"],
)
def test_more_rows_than_the_total_raise(
    platform: ServedPlatform, bend: bent.Answer, page_size: int
) -> None:
    """Before: a total counting pages (2 for 13 devices in pages of 10) read as 2 records:
    one page was read and 10 of 13 devices returned; a total 5 too low returned 10."""
    faults = Faults()
    bent.bend(faults, DEVICES, bend)
    user = bent_user(platform, faults)
    with pytest.raises(opslib.IncompleteRead, match="more rows than the total") as info:
        user.devices.list(user.user_id, page_size=page_size)
    assert info.value.got == 10
    assert info.value.expected < 10
    with pytest.raises(opslib.IncompleteRead, match="more rows than the total"):
        list(user.devices.iter_pages(user.user_id, page_size=page_size))


# -- 3. a platform that ignores page_no -----------------------------------------------------


@pytest.mark.parametrize("read", list(READS))
def test_iter_pages_over_a_platform_that_ignores_page_no_raises(
    platform: ServedPlatform, read: str
) -> None:
    """Before: page 1 came back for every page_no and iter_pages yielded it three times,
    15 rows standing for 13 records, without an error."""
    path, _ = READS[read]
    faults = Faults()
    bent.bend(faults, path, request=bent.first_page_always())
    user = bent_user(platform, faults)
    if read == "devices":
        pages = user.devices.iter_pages(user.user_id, page_size=PAGE)
    else:
        pages = user.events.iter_pages(
            "-3650d", end="2100-01-01", user_id=user.user_id, page_size=PAGE
        )
    with pytest.raises(opslib.IncompleteRead, match="repeats rows already read") as info:
        for _ in pages:
            pass
    assert info.value.duplicates == PAGE
    assert info.value.got == PAGE
    # a frame drops the repeats and counts what is left
    with pytest.raises(opslib.IncompleteRead) as info:
        READS[read][1](user)
    assert info.value.got == PAGE


# -- 4. data that is not a page -------------------------------------------------------------


@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("value", [None, [], "", "ok"], ids=repr)
def test_a_success_whose_data_is_not_a_page_raises(
    platform: ServedPlatform, read: str, value: Any
) -> None:
    """Before: ``data`` null, ``[]`` or ``""`` in a success read as an empty frame, and
    ``"ok"`` raised a bare ValueError from inside the client."""
    path, list_read = READS[read]
    faults = Faults()
    bent.bend(faults, path, bent.data(value))
    with pytest.raises(opslib.ProtocolError) as info:
        list_read(bent_user(platform, faults))
    assert info.value.operation == path
    assert info.value.field.startswith("data")
    assert path in str(info.value)


@pytest.mark.parametrize("value", [None, [], "ok"], ids=repr)
def test_a_record_read_whose_data_is_not_the_record_raises(
    platform: ServedPlatform, value: Any
) -> None:
    """Before: ``data: null`` in the success answer of a device read was a row of <NA>."""
    faults = Faults()
    user = bent_user(platform, faults)
    device_id = devices(user)["device_id"].iloc[0]
    bent.bend(faults, "/device/query", bent.data(value))
    with pytest.raises(opslib.ProtocolError, match="/device/query: data"):
        user.devices.get(device_id)
    bent.bend(faults, "/user/query", bent.data(value))
    with pytest.raises(opslib.ProtocolError, match="/user/query: data"):
        user.users.get()
    bent.bend(faults, "/product/query_category", bent.data(value))
    with pytest.raises(opslib.ProtocolError, match="/product/query_category: data"):
        user.products.categories()


# -- 6. rows deleted during a read, total in pages --------------------------------------------


@pytest.mark.dialects(lambda d: d.paging.total == "pages")
def test_rows_deleted_during_a_read_counted_in_pages_raise(
    platform_factory: Callable[..., ServedPlatform], platform: ServedPlatform
) -> None:
    """The vendor's total counts pages: 13 devices are 3 pages of 5, whose last page
    (read second) tells how many records there are. The user unbinds 3 devices of page 1
    (as many as page 3 holds) after it was read: page 3 is now empty and the pages say 2.
    Before, the read took 2 pages for the whole and returned 10 of 13 devices, the 3
    unbound ones among them, without an error."""
    fresh = platform_factory()
    user = fresh.connect("user")
    before = devices(user)
    assert 10 < len(before) <= 15  # 3 pages
    first = before["device_id"].iloc[: len(before) - 10].tolist()  # as many as page 3 holds
    faults = Faults()

    def unbind_after_page_1(sent: Sent) -> None:
        params = (sent.body or {}).get("params", {})
        if sent.path == DEVICES and params.get("page_no") == 3:
            con = sqlite3.connect(fresh.db)
            with con:
                con.executemany(
                    "DELETE FROM bindings WHERE user_id = ? AND device_id = ?",
                    [(user.user_id, d) for d in first],
                )
            con.close()
            faults.before = None

    faults.before = unbind_after_page_1
    reading = fresh.connect("user", transport=faults)
    with pytest.raises(opslib.IncompleteRead, match="added or deleted during the read"):
        devices(reading)
    assert len(devices(user)) == 10  # read again: the devices still bound


# -- 7. a bulk write with a row the platform would refuse ------------------------------------


def _required_field(platform: ServedPlatform) -> str:
    """A field of a new product the platform's dialect requires beyond the reference's
    (chint: popular), else one the reference requires (node_type)."""
    required = dialect(platform).required["/product/add"]
    extra = [f for f in required if f not in opslib.Dialect().required["/product/add"]]
    return extra[-1] if extra else "node_type"


def test_a_bulk_add_collects_a_row_missing_a_required_field(fresh_platform: ServedPlatform) -> None:
    """Before (chint): the good rows before it were written, then ValueError, no frame:
    the caller could not tell what was written."""
    missing = _required_field(fresh_platform)
    faults = Faults()
    admin = fresh_platform.connect("admin", transport=faults)
    bad = new_product(fresh_platform, "p-req-2")
    del bad[missing]
    df = admin.products.add(
        [new_product(fresh_platform, "p-req-1"), bad, new_product(fresh_platform, "p-req-3")],
        errors="collect",
    )
    assert df["product_id"].tolist() == ["p-req-1", "p-req-2", "p-req-3"]
    assert df["ok"].tolist() == [True, False, True]
    assert missing in df["error_msg"].iloc[1]
    assert df["message_id"].iloc[1] is pd.NA
    assert df["error_code"].iloc[1] is pd.NA
    assert faults.count(ADD) == 2  # nothing was sent for the refused row
    listed = set(admin.products.list(1)["product_id"])
    assert {"p-req-1", "p-req-3"} <= listed
    assert "p-req-2" not in listed


def test_a_bulk_add_raising_refuses_the_whole_input_before_sending(
    fresh_platform: ServedPlatform,
) -> None:
    missing = _required_field(fresh_platform)
    faults = Faults()
    admin = fresh_platform.connect("admin", transport=faults)
    bad = new_product(fresh_platform, "p-req-5", category_id="one")
    del bad[missing]
    refused = rf"1 of 2 items refused.*item 1: .*the platform .* requires {missing}; give it"
    with pytest.raises(ValueError, match=refused) as info:
        admin.products.add([new_product(fresh_platform, "p-req-4"), bad], errors="raise")
    assert "Nothing was sent" in str(info.value)
    assert faults.count(ADD) == 0
    with pytest.raises(ValueError, match=r"category_id is 'one' \(str\); allowed: an integer"):
        admin.products.add(new_product(fresh_platform, "p-req-6", category_id="one"))
    assert faults.count(ADD) == 0


# -- 8. an add answered with something else than the product's id -----------------------------


@pytest.mark.parametrize("answer", ["data", "bare"])
def test_an_add_answered_with_another_word_is_a_failed_row(
    fresh_platform: ServedPlatform, answer: str
) -> None:
    """Before: ``data: "ok"`` in a success made the row's product_id "ok"."""
    faults = Faults()
    rewrite = bent.data("ok") if answer == "data" else bent.bare("ok")
    bent.bend(faults, ADD, rewrite, times=1)
    admin = fresh_platform.connect("admin", transport=faults)
    df = admin.products.add(
        [new_product(fresh_platform, "p-ok-1"), new_product(fresh_platform, "p-ok-2")]
    )
    assert df["product_id"].tolist() == ["p-ok-1", "p-ok-2"]
    assert df["ok"].tolist() == [False, True]
    assert "ok" in df["error_msg"].iloc[0]
    bent.bend(faults, ADD, rewrite, times=1)
    with pytest.raises((opslib.ProtocolError, opslib.APIError), match="ok"):
        admin.products.add(new_product(fresh_platform, "p-ok-3"))


# -- 9. a business rate-limit code in a 200 body ----------------------------------------------


def _rate_limit(
    platform: ServedPlatform, faults: Faults, path: str, times: int | None = None
) -> int:
    """Plan the platform's rate-limit refusal of ``path``, without Retry-After: a 429, or
    where the dialect says so in the body of an HTTP 200, its code (the SMS code where it
    documents a wait for it); return the code."""
    errors = dialect(platform).errors
    if errors.signalling == "status":
        faults.status(path, 429, times=times)
        return 429
    code = next(iter(errors.retry_after), None) or next(
        c for c, name in errors.codes.items() if name == "RateLimited"
    )
    faults.error_in_200(path, code, times=times)
    return code


def test_a_rate_limited_sms_send_is_never_sent_again(platform: ServedPlatform) -> None:
    """Before: the refusal was retried four times under one message_id, each try counted
    against the user's SMS quota (chint 8108: 1 a minute, 5 an hour, 10 a day)."""
    faults = Faults()
    code = _rate_limit(platform, faults, SMS)
    client = bent_user(platform, faults)
    with pytest.raises(opslib.RateLimited) as info:
        client.auth.send_code("1", "5559990077", code_model=1)
    assert faults.count(SMS) == 1
    assert info.value.code == code
    assert info.value.retry_after == dialect(platform).errors.retry_after.get(code)


@pytest.mark.dialects(lambda d: bool(d.errors.retry_after))  # a documented wait
def test_a_documented_wait_longer_than_the_client_waits_is_raised(platform: ServedPlatform) -> None:
    """chint documents 60 s for 8108 (SMS 1 a minute): a read refused so is not retried
    at once but raised with that wait, which the caller can honour."""
    errors = dialect(platform).errors
    code, wait = next(iter(errors.retry_after.items()))
    faults = Faults()
    faults.error_in_200("/user/query", code, times=None)
    with pytest.raises(opslib.RateLimited) as info:
        bent_user(platform, faults).users.get()
    assert faults.count("/user/query") == 1
    assert info.value.retry_after == wait == 60


def test_a_rate_limit_code_is_retried_after_the_documented_wait(platform: ServedPlatform) -> None:
    """A dialect documenting 2 s for its rate-limit code: the read waits 2 s (not a short
    backoff), then succeeds."""
    faults = Faults()
    code = _rate_limit(platform, faults, "/user/query", times=1)
    documented = dialect(platform).replace(errors={"retry_after": {code: 2.0}})
    user = platform.connect("user", transport=faults, dialect=documented)
    slept: list[float] = []
    user._session.http.sleep = slept.append
    assert len(user.users.get()) == 1
    assert slept == [2.0]
    assert faults.count("/user/query") == 2


# -- 5. moments in the wrong unit, or outside the window asked for --------------------------


def _moments(platform: ServedPlatform, change: Callable[[int], Any]) -> bent.Answer:
    """Every event's ``gmt_create`` as the platform wrote it, changed: ``change(ms)`` gives
    what to send instead (``ts``, the reference platform's exact ms, is left out)."""
    times = opslib.protocol.Codec(dialect(platform)).times

    def answer(body: Any, params: dict[str, Any]) -> Any:
        for record in (body.get("data") or {}).get("events_list") or []:
            record.pop("ts", None)
            ms = times.ms(record["gmt_create"], field="gmt_create")
            record["gmt_create"] = change(ms) if ms is not None else None
        return body

    return answer


def test_events_outside_the_window_asked_for_raise(platform: ServedPlatform) -> None:
    """Before: a platform answering last month's events to a question about this week gave
    a frame of last month, without an error."""
    times = opslib.protocol.Codec(dialect(platform)).times
    faults = Faults()
    month = 30 * 86_400_000
    bent.bend(faults, RECORDS, _moments(platform, lambda ms: times.write(ms - month)))
    user = bent_user(platform, faults)
    plain = platform.connect("user")
    start = plain.events.list("-3650d", end="2100-01-01", user_id=plain.user_id, limit=1)
    first = start["gmt_create"].iloc[0]
    with pytest.raises(opslib.ProtocolError, match=r"gmt_create is .* in the window asked for"):
        user.events.list(first, end=first + pd.Timedelta(days=1), user_id=user.user_id)


@pytest.mark.dialects(lambda d: d.times.gmt_format == "epoch_ms")
def test_seconds_where_milliseconds_are_due_raise(platform: ServedPlatform) -> None:
    """Before: under chint a platform writing epoch seconds gave events of January 1970."""
    faults = Faults()
    bent.bend(faults, RECORDS, _moments(platform, lambda ms: ms // 1000))
    user = bent_user(platform, faults)
    with pytest.raises(opslib.ProtocolError, match=r"gmt_create is \d+; expected epoch milli"):
        events(user)
