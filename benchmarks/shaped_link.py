"""A shaped link: a TCP proxy that adds round-trip time and caps bandwidth.

    python -m benchmarks.shaped_link --to 127.0.0.1:8000 --rtt-ms 40 --mbit 100

listens on a free port of this machine's first non-loopback address (a client of a far
platform sees a host that is not loopback, as it would), prints ``LISTEN host:port STATS
host:port`` and forwards every connection to ``--to``. Each direction is one link shared by
every connection, as a real one is: a chunk of bytes waits for the link to be free, takes
``bytes × 8 / bandwidth`` on it, then ``rtt / 2`` to arrive. The link's queue has no bound
(the proxy reads as fast as the sender writes), so more requests in flight than the link
holds show up as rising latency, as they do behind a real bottleneck with deep buffers.
TCP's own slow start and losses are not modelled.

Connecting to the STATS port answers ``<bytes to the client> <bytes to the platform>`` since
the proxy started, and closes: a benchmark reads it before and after a run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import sys
import time

CHUNK = 16_384  # bytes a connection puts on the link at once: connections interleave


def local_address() -> str:
    """This machine's first non-loopback IPv4 address, else 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("203.0.113.1", 9))  # no packet is sent: this picks the route's address
            address = str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"
    return "127.0.0.1" if address.startswith("127.") else address


class Link:
    """One direction: a shared serializer followed by a fixed delay."""

    def __init__(self, one_way_s: float, bits_per_s: float) -> None:
        self.one_way_s = one_way_s
        self.bits_per_s = bits_per_s
        self.free_at = 0.0
        self.bytes = 0

    def arrival(self, size: int) -> float:
        """When ``size`` bytes handed to the link now arrive at its far end."""
        now = time.monotonic()
        start = max(now, self.free_at)
        self.free_at = start + size * 8 / self.bits_per_s
        self.bytes += size
        return self.free_at + self.one_way_s


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, link: Link) -> None:
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def deliver() -> None:
        while True:
            at, data = await queue.get()
            if not data:
                break
            delay = at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()

    task = asyncio.create_task(deliver())
    try:
        while True:
            data = await reader.read(CHUNK)
            if not data:
                break
            queue.put_nowait((link.arrival(len(data)), data))
    except (ConnectionError, OSError):
        pass
    finally:
        queue.put_nowait((time.monotonic() + link.one_way_s, b""))
        with contextlib.suppress(ConnectionError, OSError):
            await task


async def serve(to: tuple[str, int], rtt_s: float, bits_per_s: float, host: str) -> None:
    down = Link(rtt_s / 2, bits_per_s)  # platform -> client
    up = Link(rtt_s / 2, bits_per_s)  # client -> platform

    async def connection(c_reader: asyncio.StreamReader, c_writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(rtt_s)  # the TCP handshake to the far end
        try:
            p_reader, p_writer = await asyncio.open_connection(*to)
        except OSError:
            c_writer.close()
            return
        for w in (c_writer, p_writer):
            w.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(_pipe(c_reader, p_writer, up), _pipe(p_reader, c_writer, down))
        for w in (c_writer, p_writer):
            w.close()

    async def stats(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(f"{down.bytes} {up.bytes}\n".encode())
        await writer.drain()
        writer.close()

    proxy = await asyncio.start_server(connection, host, 0)
    control = await asyncio.start_server(stats, "127.0.0.1", 0)
    port = proxy.sockets[0].getsockname()[1]
    control_port = control.sockets[0].getsockname()[1]
    print(f"LISTEN {host}:{port} STATS 127.0.0.1:{control_port}", flush=True)
    async with proxy, control:
        await asyncio.gather(proxy.serve_forever(), control.serve_forever())


def read_stats(address: str) -> tuple[int, int]:
    """(bytes to the client, bytes to the platform) so far, from a proxy's STATS address."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        down, up = s.makefile().readline().split()
    return int(down), int(up)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.shaped_link", description=__doc__)
    ap.add_argument("--to", required=True, help="the platform, host:port")
    ap.add_argument("--rtt-ms", type=float, required=True)
    ap.add_argument("--mbit", type=float, required=True, help="bandwidth each way, Mbit/s")
    ap.add_argument("--host", default=None, help="address to listen on (default: see above)")
    args = ap.parse_args(argv)
    host, port = args.to.rsplit(":", 1)
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - uvicorn[standard] brings it
        pass
    listen = args.host or local_address()
    asyncio.run(serve((host, int(port)), args.rtt_ms / 1000, args.mbit * 1e6, listen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
