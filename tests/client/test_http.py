"""Retries on the real platform with faults injected around the real transport."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

import opslib
from client.clocks import Clocks
from client.faults import Faults

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

PRODUCT = {
    "product_secret": "product-secret-1",
    "product_name": "Retry lamp",
    "category_id": 1,
    "net_type": 1,
    "node_type": 1,
}


def retry_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "opslib" and "retrying" in r.getMessage()
    ]


@pytest.fixture
def faults() -> Faults:
    return Faults()


def connect(
    platform: ServedPlatform, faults: Faults, role: str = "ops", **kw: Any
) -> opslib.Client:
    return platform.connect(role, transport=faults, **kw)


class Waits:
    """A client's retry waits, recorded instead of slept, on a clock of their own that each
    wait moves forward (and ``also``, e.g. the platform's fake clock)."""

    def __init__(self, client: opslib.Client, also: Callable[[float], None] | None = None):
        self.slept: list[float] = []
        self.now = 0.0
        self._also = also
        http = client._session.http
        http.sleep = self.sleep
        http.monotonic = lambda: self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        if self._also is not None:
            self._also(seconds)


def test_default_timeouts_are_finite(platform: ServedPlatform, faults: Faults) -> None:
    with platform.connect(transport=faults) as client:
        client.users.get()
    for sent in faults.sent:
        timeout = sent.timeout
        assert set(timeout) == {"connect", "read", "write", "pool"}
        for part in timeout.values():
            assert part is not None
            assert 0 < part <= 60


def test_429_retry_after_is_honoured(
    platform: ServedPlatform, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    client = connect(platform, faults)
    waits = Waits(client)
    faults.status("/product/query_category", 429, headers={"Retry-After": "1"})
    caplog.set_level(logging.DEBUG, logger="opslib")
    df = client.products.categories()
    assert waits.slept == [1.0]
    assert len(df) > 0
    assert faults.count("/product/query_category") == 2
    assert any("429" in line for line in retry_lines(caplog))


@pytest.mark.parametrize("dialect", [None, "vendor"])
def test_the_platforms_own_429_is_waited_out(
    platform_factory: Callable[..., ServedPlatform],
    caplog: pytest.LogCaptureFixture,
    clocks: Clocks,
    dialect: str | None,
) -> None:
    # vendor: HTTP 200 and its code 10008 in the body, the Retry-After header kept
    limited = platform_factory(dialect=dialect, rate_limit_per_s=5.0, rate_limit_burst=2.0)
    faults = Faults()
    client = connect(limited, faults)
    waits = Waits(client, also=lambda seconds: clocks.platform.advance(seconds=seconds))
    caplog.set_level(logging.DEBUG, logger="opslib")
    for _ in range(6):
        client.products.categories()
    assert any("429" in line for line in retry_lines(caplog))
    assert faults.count("/product/query_category") > 6
    assert waits.slept  # the platform's Retry-After, waited on its clock


def test_503s_are_retried_within_the_deadline(
    platform: ServedPlatform, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    client = connect(platform, faults)
    waits = Waits(client)
    faults.status("/user/query", 503, times=2)
    caplog.set_level(logging.DEBUG, logger="opslib")
    df = client.users.get()
    assert len(waits.slept) == 2
    assert len(df) == 1
    assert faults.count("/user/query") == 3
    assert sum("HTTP 503" in line for line in retry_lines(caplog)) == 2


def test_503_forever_stops_at_the_deadline(platform: ServedPlatform, faults: Faults) -> None:
    creds = platform.credentials()
    client = opslib.Client(
        platform.base_url,
        client_id=creds["client_id"],
        client_secret=creds["client_secret"],
        transport=faults,
        max_retries=1000,
        retry_deadline=2.0,
    )
    client.auth.login(creds["area_code"], creds["phone"], password=creds["password"])
    waits = Waits(client)
    faults.status("/user/query", 503, times=None)
    with pytest.raises(opslib.ServerError) as info:
        client.users.get()
    assert info.value.code == 503
    assert 0 < waits.now <= 2.0  # waited, and never past the 2 s deadline
    assert faults.count("/user/query") >= 2


def test_max_retries_bounds_attempts(platform: ServedPlatform, faults: Faults) -> None:
    client = connect(platform, faults, max_retries=2)
    Waits(client)
    faults.status("/user/query", 502, times=None)
    with pytest.raises(opslib.ServerError):
        client.users.get()
    assert faults.count("/user/query") == 3


@pytest.mark.parametrize("code", [400, 403, 404, 409, 422, 500])
def test_business_errors_are_not_retried(
    platform: ServedPlatform, faults: Faults, caplog: pytest.LogCaptureFixture, code: int
) -> None:
    client = connect(platform, faults)
    faults.status("/device/query", code)
    caplog.set_level(logging.DEBUG, logger="opslib")
    with pytest.raises(opslib.APIError) as info:
        client.devices.get("any-device")
    assert info.value.code == code
    assert faults.count("/device/query") == 1
    assert retry_lines(caplog) == []


def test_a_real_not_found_is_not_retried(platform: ServedPlatform, faults: Faults) -> None:
    client = connect(platform, faults)
    with pytest.raises(opslib.NotFound, match="/device/query"):
        client.devices.get("no-such-device")
    assert faults.count("/device/query") == 1


def test_refused_connections_are_retried(
    platform: ServedPlatform, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    client = connect(platform, faults)
    Waits(client)
    faults.refuse("/user/query", times=2)
    caplog.set_level(logging.DEBUG, logger="opslib")
    assert len(client.users.get()) == 1
    assert sum("before the request was sent" in line for line in retry_lines(caplog)) == 2


def test_a_read_whose_answer_was_lost_is_repeated(platform: ServedPlatform, faults: Faults) -> None:
    client = connect(platform, faults)
    faults.drop_response("/product/query_category")
    assert len(client.products.categories()) > 0
    assert faults.count("/product/query_category") == 2


def test_a_write_whose_answer_was_lost_is_replayed_once(
    fresh_platform: ServedPlatform, faults: Faults, caplog: pytest.LogCaptureFixture
) -> None:
    admin = connect(fresh_platform, faults, role="admin")
    faults.drop_response("/product/add")
    caplog.set_level(logging.DEBUG, logger="opslib")
    df = admin.products.add({"product_id": "p-retry-1", **PRODUCT})
    assert df["ok"].tolist() == [True]
    sent = faults.to("/product/add")
    assert [s.fault for s in sent] == ["drop", ""]
    assert sent[0].message_id == sent[1].message_id == df["message_id"].item()
    assert any("after the request was sent" in line for line in retry_lines(caplog))
    products = admin.products.list(1)
    assert (products["product_id"] == "p-retry-1").sum() == 1


def test_a_write_retried_after_a_token_refresh_keeps_its_message_id(
    fresh_platform: ServedPlatform, faults: Faults
) -> None:
    admin = connect(fresh_platform, faults, role="admin")
    # attempt 1 reaches the platform and its answer is lost; attempt 2 meets a 401 (as if
    # the token expired meanwhile); attempt 3 carries a new token and the same message_id.
    faults.drop_response("/product/add")
    faults.status("/product/add", 401, when=lambda sent: len(faults.to("/product/add")) == 2)
    df = admin.products.add({"product_id": "p-retry-2", **PRODUCT})
    assert df["ok"].tolist() == [True]
    sent = faults.to("/product/add")
    assert [s.fault for s in sent] == ["drop", "status 401", ""]
    assert len({s.message_id for s in sent}) == 1
    tokens = [s.body["params"]["access_token"] for s in sent if s.body]
    assert tokens[0] != tokens[2]
    assert faults.count("/token/access") >= 2  # the login's exchange, then the refresh
    assert (admin.products.list(1)["product_id"] == "p-retry-2").sum() == 1


def test_a_write_that_never_gets_an_answer_is_outcome_unknown(
    fresh_platform: ServedPlatform, faults: Faults
) -> None:
    admin = connect(fresh_platform, faults, role="admin", max_retries=1)
    Waits(admin)
    faults.drop_response("/product/add", times=None)
    with pytest.raises(opslib.OutcomeUnknown) as info:
        admin.products.add({"product_id": "p-retry-3", **PRODUCT})
    assert faults.count("/product/add") == 2
    faults.clear()
    # repeating with the same message_id is safe: the platform replays the first answer
    params = {"product_id": "p-retry-3", **PRODUCT}
    assert admin.call("/product/add", params, message_id=info.value.message_id) == "p-retry-3"
    assert (admin.products.list(1)["product_id"] == "p-retry-3").sum() == 1


def test_single_use_operations_are_not_repeated_once_sent(
    platform: ServedPlatform, faults: Faults
) -> None:
    client = connect(platform, faults)
    data = client.call(
        "/user/login",
        {
            "login_model": 1,
            "area_code": platform.area_code,
            "phone": platform.user_phone,
            "password": platform.user_password,
        },
    )
    faults.drop_response("/token/access")
    with pytest.raises(opslib.OutcomeUnknown):
        client.auth.exchange_code(data["code"])
    assert faults.count("/token/access") - 1 == 1  # 1 from connect's own login


def test_transport_errors_wrap_httpx() -> None:
    client = opslib.connect("http://127.0.0.1:9", client_id="c", client_secret="s", max_retries=0)
    params = {"login_model": 1, "area_code": "1", "phone": "5550000", "password": "x" * 8}
    with pytest.raises(opslib.TransportError) as info:
        client.call("/user/login", params)
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    assert info.value.sent is False


@pytest.mark.parametrize(
    "base", ["http://platform.test", "http://platform.test/", "https://platform.test/api/v2/"]
)
def test_operation_urls_are_parsed_once_and_keep_the_base_path(base: str) -> None:
    from opslib.client._http import HTTP

    http = HTTP(base)
    try:
        url = http._url("/device/query_record")
        assert url == httpx.URL(base.rstrip("/") + "/device/query_record")
        assert http._url("/device/query_record") is url  # parsed once
        assert http._url("/device/query") == httpx.URL(base.rstrip("/") + "/device/query")
    finally:
        http.close()


def test_clients_share_one_ssl_context_per_ca_variables(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Before: every connect() loaded the CA bundle into a new SSL context (35-75 ms); and
    a platform over plain HTTP, which never opens TLS, loaded it too."""
    import ssl

    from opslib.client._defaults import default_transports

    made: list[object] = []
    real = ssl.create_default_context

    def counting(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        made.append(kwargs.get("cafile") or kwargs.get("capath"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counting)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    limits = httpx.Limits(max_connections=8)
    https = "https://platform.invalid"
    default_transports(https, limits)
    made.clear()  # the first client of this process's variables may make one
    for _ in range(3):
        default_transports(https, limits)
    assert made == []
    import certifi

    bundle = tmp_path / "ca.pem"
    bundle.write_bytes(Path(certifi.where()).read_bytes())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    default_transports(https, limits)
    default_transports(https, limits)
    assert made == [str(bundle)]  # httpx's rule: SSL_CERT_FILE names the bundle, read once
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "another.pem"))
    client = platform.connect()  # plain HTTP: no bundle read, and the calls work
    assert made == [str(bundle)]
    assert len(client.products.categories()) > 0
    client.close()


def test_a_page_keeps_its_decoding_turn_from_its_answer_to_the_end_of_its_typing() -> None:
    """Another thread's answer waits while a page is typed (as bytes, not as parsed dicts);
    outside a page, and after give_back, the turn is free."""
    import threading

    from opslib.client._http import Decoding

    turns = Decoding()

    def other_thread_gets_a_turn() -> bool:
        got: list[bool] = []

        def take() -> None:
            got.append(turns._lock.acquire(timeout=0.2))
            if got[-1]:
                turns._lock.release()

        thread = threading.Thread(target=take)
        thread.start()
        thread.join()
        return got[0]

    turns.keep()  # outside a page: nothing kept
    assert other_thread_gets_a_turn()
    with turns.page():
        assert other_thread_gets_a_turn()  # no answer yet: the turn is free
        turns.keep()
        with turns:  # the typing re-enters it
            pass
        assert not other_thread_gets_a_turn()  # kept past the parse, through the typing
    assert other_thread_gets_a_turn()
    with turns.page():
        turns.keep()
        turns.give_back()  # a failed answer: the turn goes back before a token refresh
        assert other_thread_gets_a_turn()


def test_the_collector_pauses_for_a_kept_turn_and_is_left_as_the_caller_had_it() -> None:
    """The collector waits while a page's answer is parsed and typed (its records die in
    the turn); it runs again when the turn ends, by error too, or is given back before a
    retry; a caller who had paused it finds it paused."""
    import gc

    from opslib.client._http import Decoding

    turns = Decoding()
    assert gc.isenabled()
    with turns.page():
        assert gc.isenabled()  # the request and its wait: the collector runs
        turns.keep()
        assert not gc.isenabled()
        with turns:
            assert not gc.isenabled()
    assert gc.isenabled()

    def fail_typing() -> None:
        with turns.page():
            turns.keep()
            raise RuntimeError("typing failed")

    with pytest.raises(RuntimeError, match="typing failed"):
        fail_typing()
    assert gc.isenabled()
    with turns.page():
        turns.keep()
        turns.give_back()  # a token refreshed: the request goes again
        assert gc.isenabled()
    gc.disable()
    try:
        with turns.page():
            turns.keep()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_environments_proxy_carries_requests_but_where_no_proxy_says(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """httpx.Client's rule, kept by the transport opslib makes: HTTP_PROXY for http://, and
    NO_PROXY's hosts go direct."""
    import socket
    import threading

    seen: list[str] = []
    listener = socket.create_server(("127.0.0.1", 0))

    def proxy() -> None:  # records each request line, answers 502
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                seen.append(conn.recv(65536).split(b"\r\n", 1)[0].decode())
                conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=proxy, daemon=True).start()
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{listener.getsockname()[1]}")
    try:
        far = opslib.connect(
            "http://platform.test", client_id="c", client_secret="s", max_retries=0
        )
        params = {"login_model": 1, "area_code": "1", "phone": "5550000", "password": "x" * 8}
        with pytest.raises(opslib.APIError):
            far.call("/user/login", params)
        assert seen
        assert seen[0].startswith("POST http://platform.test/user/login ")
        seen.clear()
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        with platform.connect() as near:
            assert len(near.products.categories())
        assert seen == []
    finally:
        listener.close()


def test_calls_one_at_a_time_keep_one_connection_and_a_pool_holds_one(
    platform: ServedPlatform,
) -> None:
    """The default transport is httpx's own, a pool of one connection for each connection
    of the client (pools of several cost more client CPU a request: each looks at all its
    connections as a request starts and ends). Calls one at a time go to the first pool
    and reuse its connection: across a far link each new connection costs a round trip
    (dealt in turn, the login, the token and the first page opened three)."""
    from opslib.client import _constants as C
    from opslib.client._http import Pools

    connections = 16 + C.EXTRA_CONNECTIONS
    with platform.connect(concurrency=16) as client:  # logged in: two calls
        pools = client._session.http._transport
        assert isinstance(pools, Pools)
        assert len(pools.transports) == connections
        assert all(isinstance(t, httpx.HTTPTransport) for t in pools.transports)
        client.products.categories()
        client.products.categories()
        opened = [len(t._pool.connections) for t in pools.transports]
        assert opened == [1] + [0] * (connections - 1)
        assert len(client.devices.list(page_size=2)) > 16  # pages in flight
        opened = [len(t._pool.connections) for t in pools.transports]
        assert max(opened) == 1, opened
        assert sum(opened) > 8, opened


def test_pools_give_a_request_to_the_first_pool_with_the_fewest_waiting() -> None:
    import threading

    from opslib.client._http import Pools

    release, seen = threading.Event(), []

    class Held(httpx.BaseTransport):  # answers once released
        def __init__(self, i: int) -> None:
            self.i = i

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            seen.append(self.i)
            release.wait(10)
            return httpx.Response(200)

    pools = Pools([Held(i) for i in range(3)])  # type: ignore[list-item]
    request = httpx.Request("POST", "http://platform.test/user/login")
    threads = []
    for n in range(1, 6):
        threads.append(threading.Thread(target=pools.handle_request, args=(request,)))
        threads[-1].start()
        while len(seen) < n:  # each waits in its pool before the next starts
            threading.Event().wait(0.001)
    assert seen == [0, 1, 2, 0, 1]
    release.set()
    for thread in threads:
        thread.join(10)
    assert pools.handle_request(request).status_code == 200
    assert seen[-1] == 0  # none waiting: the first pool again
