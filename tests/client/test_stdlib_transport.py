"""The stdlib transport under httpx: on the real platform, and against sockets that misbehave.

The misbehaving peers are raw sockets (fault injection only): one that closes a keep-alive
connection while it is idle, one that never answers, one that hangs up mid-body.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import httpx
import orjson
import pytest

from opslib.client._stdlib_transport import StdlibTransport, make_transport

if TYPE_CHECKING:
    from tests.conftest import Platform

ID = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


# -- a raw socket peer ---------------------------------------------------------------------


class Peer:
    """A loopback TCP server whose every connection is handled by ``serve(conn)``."""

    def __init__(self, serve: Callable[[socket.socket], None]) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted = 0
        self._serve = serve
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _loop(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def settled(self, at_least: int) -> int:
        """``accepted`` once it reaches ``at_least`` (or after 5 s): a connection the client
        opened but has not used yet may still be in the listener's queue."""
        deadline = time.monotonic() + 5
        while self.accepted < at_least and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.accepted

    def close(self) -> None:
        self.listener.close()


def read_request(conn: socket.socket) -> bytes:
    """Read one request with a Content-Length body; b'' when the client closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        body += conn.recv(65536)
    return head


def ok(body: bytes = b'{"ok": true}') -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


MakePeer = Callable[[Callable[[socket.socket], None]], Peer]


@pytest.fixture
def peers() -> Iterator[MakePeer]:
    made: list[Peer] = []

    def make(serve: Callable[[socket.socket], None]) -> Peer:
        made.append(Peer(serve))
        return made[-1]

    yield make
    for peer in made:
        peer.close()


# -- choice of transport -------------------------------------------------------------------


@pytest.mark.usefixtures("no_proxy_env")
def test_the_stdlib_transport_is_the_default_without_a_proxy(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[StdlibTransport] = []

    class Counted(StdlibTransport):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            made.append(self)

    monkeypatch.setattr("opslib.client._stdlib_transport.StdlibTransport", Counted)
    client = platform.connect()
    df = client.products.categories()
    assert len(df) > 0
    # every request of the login and the read went through it, over one kept-alive socket
    assert len(made) == 1
    assert made[0].connections_opened == 1
    client.close()


@pytest.mark.usefixtures("no_proxy_env")
def test_a_proxy_hands_back_httpx_s_own(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_transport("http://127.0.0.1:8000"), StdlibTransport)
    assert isinstance(make_transport("https://platform.example"), StdlibTransport)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    assert make_transport("https://platform.example") is None  # httpx honours the proxy
    assert isinstance(make_transport("http://127.0.0.1:8000"), StdlibTransport)  # http: none
    monkeypatch.setenv("NO_PROXY", "platform.example")
    assert isinstance(make_transport("https://platform.example"), StdlibTransport)


# -- on the real platform ------------------------------------------------------------------


@pytest.mark.parametrize("transport", [StdlibTransport, httpx.HTTPTransport])
def test_the_same_answers_as_httpx_s_transport(
    platform: Platform, transport: type[httpx.BaseTransport]
) -> None:
    """Status, headers and body of real platform answers, with either transport."""
    client = platform.connect()
    token = client._session.tokens.access_token()
    params = {"client_id": platform.client_id, "access_token": token}
    envelope = {"message_id": ID, "user_id": client.user_id, "params": params}
    with httpx.Client(base_url=platform.base_url, transport=transport()) as http:
        categories = http.post("/product/query_category", json=envelope, params={"a": "b c"})
        missing = http.post("/no/such/operation", json={})
        token = http.post("/token/access", params={"grant_type": "nonsense"})
    assert categories.status_code == 200, categories.text
    assert categories.headers["content-type"].startswith("application/json")
    assert categories.http_version == "HTTP/1.1"
    answer = orjson.loads(categories.content)
    assert answer["message_id"] == ID
    assert answer["data"]
    assert missing.status_code == 404
    assert token.status_code == 400
    assert "error" in token.json()


def test_threads_share_the_pool_and_every_answer_is_its_own(platform: Platform) -> None:
    client = platform.connect()
    params = {
        "client_id": platform.client_id,
        "access_token": client._session.tokens.access_token(),
    }
    transport = StdlibTransport(max_connections=4, max_keepalive=4)
    with httpx.Client(base_url=platform.base_url, transport=transport) as http:

        def call(i: int) -> str:
            message_id = str(uuid.UUID(int=i))
            user_id = client.user_id
            envelope = {"message_id": message_id, "user_id": user_id, "params": params}
            r = http.post("/product/query_category", json=envelope)
            return str(r.json()["message_id"])

        with ThreadPoolExecutor(8) as pool:
            ids = list(pool.map(call, range(80)))
    assert ids == [str(uuid.UUID(int=i)) for i in range(80)]
    assert 1 <= transport.connections_opened <= 4


# -- faults --------------------------------------------------------------------------------


def test_an_idle_connection_the_server_closed_is_not_reused(peers: MakePeer) -> None:
    def serve_once_then_hang_up(conn: socket.socket) -> None:
        if read_request(conn):
            conn.sendall(ok())  # says keep-alive (HTTP/1.1, no Connection: close) ...
        time.sleep(0.05)
        conn.close()  # ... then closes while the client's connection sits idle

    peer = peers(serve_once_then_hang_up)
    transport = StdlibTransport()
    with httpx.Client(transport=transport, timeout=5) as http:
        assert http.post(peer.url, json={}).json() == {"ok": True}
        time.sleep(0.3)
        assert http.post(peer.url, json={}).json() == {"ok": True}  # no stale-socket error
    assert peer.accepted == 2
    assert transport.connections_opened == 2


def test_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}"
    with (
        httpx.Client(transport=StdlibTransport(), timeout=2) as http,
        pytest.raises(httpx.ConnectError),
    ):
        http.post(url, json={})


def test_a_silent_server_is_a_read_timeout(peers: MakePeer) -> None:
    done = threading.Event()

    def never_answer(conn: socket.socket) -> None:
        read_request(conn)
        done.wait(5)
        conn.close()

    peer = peers(never_answer)
    timeout = httpx.Timeout(5, read=0.2)
    started = time.monotonic()
    with (
        httpx.Client(transport=StdlibTransport(), timeout=timeout) as http,
        pytest.raises(httpx.ReadTimeout),
    ):
        http.post(peer.url, json={})
    assert time.monotonic() - started < 1.5
    done.set()


@pytest.mark.parametrize(
    "sent_before_hang_up",
    [
        pytest.param(ok(b'{"ok": true, "padding": "' + b"x" * 1000 + b'"}')[:200], id="mid-body"),
        pytest.param(b"", id="before-the-status-line"),
    ],
)
def test_a_hang_up_is_a_protocol_error(peers: MakePeer, sent_before_hang_up: bytes) -> None:
    def hang_up(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(sent_before_hang_up)
        conn.close()

    peer = peers(hang_up)
    with (
        httpx.Client(transport=StdlibTransport(), timeout=2) as http,
        pytest.raises(httpx.RemoteProtocolError),
    ):
        http.post(peer.url, json={})


def test_a_full_pool_waits_then_times_out(peers: MakePeer) -> None:
    release = threading.Event()

    def slow(conn: socket.socket) -> None:
        while read_request(conn):
            release.wait(5)
            conn.sendall(ok())
        conn.close()

    peer = peers(slow)
    transport = StdlibTransport(max_connections=1, max_keepalive=1)
    timeout = httpx.Timeout(5, pool=0.2)
    with httpx.Client(transport=transport, timeout=timeout) as http, ThreadPoolExecutor(1) as pool:
        first = pool.submit(http.post, peer.url, json={})
        time.sleep(0.1)
        with pytest.raises(httpx.PoolTimeout):
            http.post(peer.url, json={})
        release.set()
        assert first.result().json() == {"ok": True}
        assert http.post(peer.url, json={}).json() == {"ok": True}  # the slot came back
    assert transport.connections_opened == 1


def test_connection_close_is_honoured(peers: MakePeer) -> None:
    def close_each(conn: socket.socket) -> None:
        if read_request(conn):
            conn.sendall(ok().replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1))
        conn.close()

    peer = peers(close_each)
    transport = StdlibTransport()
    with httpx.Client(transport=transport, timeout=2) as http:
        for _ in range(3):
            assert http.post(peer.url, json={}).json() == {"ok": True}
    assert peer.accepted == 3


# -- requests sent early, their answers read later -------------------------------------------


def echo_path(conn: socket.socket) -> None:
    """Answer each request with its own path, in order, on one keep-alive connection."""
    with conn, contextlib.suppress(OSError):  # the client may close it unread (abandon)
        while head := read_request(conn):
            path = head.split(b" ", 2)[1]
            conn.sendall(ok(orjson.dumps({"path": path.decode()})))


def test_one_thread_sends_early_and_reads_each_answer_later(peers: MakePeer) -> None:
    peer = peers(echo_path)
    transport = StdlibTransport(max_connections=3, max_keepalive=3)
    with httpx.Client(transport=transport, timeout=5) as http:
        sent = [transport.start(http.build_request("POST", f"{peer.url}/p{i}")) for i in range(3)]
        answers = [exchange.finish().read() for exchange in reversed(sent)]
        assert [orjson.loads(a)["path"] for a in answers] == ["/p2", "/p1", "/p0"]
        # the connections went back to the pool and carry the next requests
        again = [transport.start(http.build_request("POST", f"{peer.url}/q{i}")) for i in range(3)]
        assert [orjson.loads(e.finish().read())["path"] for e in again] == ["/q0", "/q1", "/q2"]
    assert transport.connections_opened == peer.accepted == 3


def test_an_abandoned_exchange_gives_its_slot_back_and_is_not_reused(peers: MakePeer) -> None:
    peer = peers(echo_path)
    transport = StdlibTransport(max_connections=1, max_keepalive=1)
    timeout = httpx.Timeout(5, pool=0.2)
    with httpx.Client(transport=transport, timeout=timeout) as http:
        first = transport.start(http.build_request("POST", f"{peer.url}/dropped"))
        with pytest.raises(httpx.PoolTimeout):  # the one slot is the exchange's
            transport.start(http.build_request("POST", f"{peer.url}/waits"))
        first.abandon()
        first.abandon()  # twice is harmless
        with pytest.raises(RuntimeError, match="already finished"):
            first.finish()
        # its unread answer is not taken for the next request's: a new connection
        assert http.post(f"{peer.url}/next").json() == {"path": "/next"}
    assert transport.connections_opened == peer.accepted == 2


def test_an_answer_lost_after_sending_early_is_a_protocol_error(peers: MakePeer) -> None:
    def hang_up(conn: socket.socket) -> None:
        read_request(conn)
        conn.close()

    peer = peers(hang_up)
    transport = StdlibTransport(max_connections=1, max_keepalive=1)
    with httpx.Client(transport=transport, timeout=httpx.Timeout(5, pool=0.2)) as http:
        exchange = transport.start(http.build_request("POST", peer.url))
        with pytest.raises(httpx.RemoteProtocolError):
            exchange.finish()
        # the failed exchange gave its slot back
        transport.start(http.build_request("POST", peer.url)).abandon()


def test_connections_opened_ahead_carry_the_requests_that_follow(peers: MakePeer) -> None:
    peer = peers(echo_path)
    transport = StdlibTransport(max_connections=4, max_keepalive=3)
    url = httpx.URL(peer.url)
    with httpx.Client(transport=transport, timeout=5) as http:
        assert transport.open_connections(url, 5, timeout=5) == 3  # at most max_keepalive idle
        assert transport.open_connections(url, 3, timeout=5) == 0  # they are there already
        sent = [transport.start(http.build_request("POST", f"{peer.url}/p{i}")) for i in range(3)]
        assert [orjson.loads(e.finish().read())["path"] for e in sent] == ["/p0", "/p1", "/p2"]
        assert transport.connections_opened == peer.accepted == 3  # no handshake of their own
        # the pool's one dead connection is not counted as ready: one is opened in its place
        with transport._lock:
            transport._idle[("http", "127.0.0.1", peer.port)][0].close()
        assert transport.open_connections(url, 3, timeout=5) == 1
        idle = transport._idle[("http", "127.0.0.1", peer.port)]
        assert len(idle) == 3
        assert all(conn.sock is not None for conn in idle)  # the dead one was dropped
    assert transport.connections_opened == peer.settled(4) == 4


def test_connections_that_fail_to_open_ahead_are_left_out() -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        url = httpx.URL(f"http://127.0.0.1:{unused.getsockname()[1]}")
    transport = StdlibTransport()
    assert transport.open_connections(url, 4, timeout=2) == 0  # no error: the request's own
    with httpx.Client(transport=transport, timeout=2) as http, pytest.raises(httpx.ConnectError):
        http.post(url, json={})


def test_the_next_request_goes_on_a_warm_connection_not_one_opened_ahead(
    peers: MakePeer,
) -> None:
    """A connection that has carried an answer is faster for the next (TCP's congestion
    window has grown): the ones opened ahead wait behind it."""
    peer = peers(echo_path)
    transport = StdlibTransport(max_connections=4, max_keepalive=4)
    with httpx.Client(transport=transport, timeout=5) as http:
        first = transport.start(http.build_request("POST", f"{peer.url}/warm"))
        warm = first._conn
        first.finish()
        assert transport.open_connections(httpx.URL(peer.url), 3, timeout=5) == 2
        following = transport.start(http.build_request("POST", f"{peer.url}/next"))
        assert following._conn is warm
        following.finish()
