"""Large reads over a NATS connection of their own (`nats_wire`): against real nats-servers
(credentials, pings, a tiny buffer) the events are exactly nats-py's, and against fake servers
on real sockets, a refusal, a dropped connection or garbage ends the read with a clear error,
or falls back to nats-py."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

import nats
import nats.errors
import pytest
from nats.aio.client import Client as NatsClient
from nats.js.api import AckPolicy, ConsumerConfig

from bench_api.adapters.event_pull import NatsPyLink, PullLink, Raw, pulled_batches
from bench_api.adapters.nats_wire import WireAddress, WireError, WireLink
from bench_api.adapters.run_events import NatsRunEvents
from bench_api.adapters.stream_reads import StreamReader
from bench_common.bus import ensure_streams, publish
from bench_common.envelope import STREAM_EVENTS, subject_for
from bench_common.events import SampleCompleted
from tests.support.services import free_port, private_nats
from tests.unit.api_rest.fakes import completed

pytestmark = pytest.mark.integration
EVENTS = 1_234


async def fill(url: str, run_id: str = "wire", count: int = EVENTS) -> None:
    nc = await nats.connect(url)
    js = nc.jetstream()
    await ensure_streams(js)
    for i in range(count):
        await publish(js, completed(run_id, i, 0))
    await nc.close()


@contextlib.asynccontextmanager
async def reader(url: str, *, wire_from: int = 1) -> AsyncIterator[NatsRunEvents]:
    nc = await nats.connect(url)
    try:
        yield NatsRunEvents(nc, reader=StreamReader(nc, wire_from=wire_from))
    finally:
        await nc.close()


async def read_both(url: str) -> None:
    """A read over the wire link equals the same read over nats-py, and used the wire."""
    async with reader(url) as wire, reader(url, wire_from=10**9) as plain:
        link = await wire._reader._link(EVENTS)
        assert isinstance(link, WireLink)
        await link.close()
        over_wire = await wire.read("wire", [SampleCompleted])
        assert len(over_wire) == EVENTS
        assert over_wire == await plain.read("wire", [SampleCompleted])
        info = await wire._js.stream_info(STREAM_EVENTS)
        assert info.state.consumer_count == 0


async def test_a_large_read_over_its_own_connection_is_nats_pys_read() -> None:
    with private_nats() as server:
        await fill(server.url)
        await read_both(server.url)


@pytest.mark.parametrize(
    ("options", "credentials"),
    [(("--user", "reader", "--pass", "s3cret-pass"), "reader:s3cret-pass@"),
     (("--auth", "t0ken"), "t0ken@")],
    ids=["user-and-password", "token"],
)  # fmt: skip
async def test_the_urls_credentials_are_used(options: tuple[str, ...], credentials: str) -> None:
    with private_nats(*options) as server:
        url = server.url.replace("nats://", f"nats://{credentials}")
        await fill(url)
        await read_both(url)
        wrong = WireAddress("127.0.0.1", server.port, token="wrong", user=None)
        assert "wrong" not in repr(wrong) and "s3cret" not in repr(WireAddress.of(urlsplit(url)))  # type: ignore[arg-type]
        with pytest.raises(WireError, match="Authorization Violation"):
            await WireLink.open(wrong)


async def test_the_servers_pings_are_answered(tmp_path: Path) -> None:
    config = tmp_path / "nats.conf"
    config.write_text('ping_interval: "100ms"\nping_max: 1\n')
    with private_nats("-c", str(config)) as server:
        await fill(server.url, count=10)
        link = await WireLink.open(WireAddress("127.0.0.1", server.port))
        await asyncio.sleep(0.6)  # six pings: unanswered, the server would have hung up
        nc = await nats.connect(server.url)
        found = await pull(nc, link, 10)
        await nc.close()
        assert [s for s, _, _ in found] == list(range(1, 11))


async def test_messages_larger_than_the_buffer_and_split_across_reads() -> None:
    with private_nats() as server:
        await fill(server.url, count=300)
        nc = await nats.connect(server.url)
        link = await WireLink.open(WireAddress("127.0.0.1", server.port), buffer=1024)
        small = await pull(nc, link, 300)
        expected = await pull(nc, NatsPyLink(nc), 300)
        await nc.close()
        assert small == expected and len(small) == 300


async def pull(nc: NatsClient, link: PullLink, wanted: int) -> list[Raw]:
    """`wanted` messages of the run `wire` through `link`, on a consumer of their own."""
    js = nc.jetstream()
    info = await js.add_consumer(
        STREAM_EVENTS,
        ConsumerConfig(
            ack_policy=AckPolicy.NONE, filter_subject=subject_for(SampleCompleted, "wire"),
            max_waiting=4, inactive_threshold=30.0,
        ),
    )  # fmt: skip
    found: list[Raw] = []
    batches = pulled_batches(link, stream=STREAM_EVENTS, consumer=info.name, wanted=wanted)
    async for batch in batches:
        found += batch
    await js.delete_consumer(STREAM_EVENTS, info.name)
    return found


# Fake servers, on real sockets.

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def fake_server(script: Script) -> AsyncIterator[WireAddress]:
    port = free_port()
    server = await asyncio.start_server(script, "127.0.0.1", port)
    try:
        yield WireAddress("127.0.0.1", port)
    finally:
        server.close()
        await server.wait_closed()


async def handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b'INFO {"server_id":"fake","headers":true,"max_payload":1048576}\r\n')
    connect = await reader.readline()
    assert connect.startswith(b"CONNECT ") and json.loads(connect[8:])["headers"] is True
    assert await reader.readline() == b"PING\r\n"
    writer.write(b"PONG\r\n")


async def test_a_server_that_wants_tls_is_refused_and_the_read_falls_back() -> None:
    async def wants_tls(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b'INFO {"server_id":"fake","tls_required":true}\r\n')
        await reader.read()

    with private_nats() as real:
        await fill(real.url)
        async with fake_server(wants_tls) as fake:
            nc = await nats.connect(real.url)
            refused = StreamReader(nc, wire_from=1, address=lambda: fake)
            events = NatsRunEvents(nc, reader=refused)
            assert len(await events.read("wire", [SampleCompleted])) == EVENTS  # over nats-py
            assert refused.wire_refused
            await nc.close()
        with pytest.raises(WireError, match="requires TLS"):
            async with fake_server(wants_tls) as fake:
                await WireLink.open(fake)
    assert WireAddress.of(urlsplit("tls://127.0.0.1:4222")) is None  # type: ignore[arg-type]
    assert WireAddress.of(urlsplit("ws://127.0.0.1:80")) is None  # type: ignore[arg-type]


async def test_a_connection_dropped_mid_pull_fails_the_read_at_once() -> None:
    async def one_then_gone(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await handshake(reader, writer)
        await reader.readline()  # SUB
        await reader.readline()  # PUB $JS.API.CONSUMER.MSG.NEXT...
        await reader.readline()
        headers = b"NATS/1.0\r\nNats-Msg-Id: x\r\n\r\n"
        body = b'{"a": 1}'
        reply = b"$JS.ACK.BENCH_EVENTS.c.1.7.1.1700000000000000000.0"
        writer.write(
            b"HMSG bench.runs.r.sample_completed 1 %b %d %d\r\n%b%b\r\n"
            % (reply, len(headers), len(headers) + len(body), headers, body)
        )
        await writer.drain()
        writer.close()

    async with fake_server(one_then_gone) as fake:
        link = await WireLink.open(fake)
        started = asyncio.get_running_loop().time()
        with pytest.raises(nats.errors.Error, match="connection to NATS was closed"):
            async for _ in pulled_batches(link, stream=STREAM_EVENTS, consumer="c", wanted=5):
                pass
        assert asyncio.get_running_loop().time() - started < 2


@pytest.mark.parametrize(
    "garbage",
    [b"HMSG subject 1 reply not-a-number 12\r\n", b"x" * 100_000],
    ids=["bad-number", "no-line-end"],
)
async def test_garbage_from_the_server_fails_the_read_clearly(garbage: bytes) -> None:
    async def talks_garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await handshake(reader, writer)
        await reader.readline()
        await reader.readline()
        await reader.readline()
        writer.write(garbage)
        await reader.read()

    async with fake_server(talks_garbage) as fake:
        link = await WireLink.open(fake)
        with pytest.raises(nats.errors.Error, match="unexpected data from the server"):
            async for _ in pulled_batches(link, stream=STREAM_EVENTS, consumer="c", wanted=5):
                pass


async def test_when_its_own_connection_cannot_be_opened_the_read_uses_nats_py() -> None:
    nowhere = WireAddress("127.0.0.1", free_port())
    with private_nats() as server:
        await fill(server.url)
        nc = await nats.connect(server.url)
        unreachable = StreamReader(nc, wire_from=1, address=lambda: nowhere)
        events = NatsRunEvents(nc, reader=unreachable)
        assert len(await events.read("wire", [SampleCompleted])) == EVENTS
        assert not unreachable.wire_refused  # tried again next time: it may be back
        await nc.close()
