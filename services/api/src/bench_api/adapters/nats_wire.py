"""A NATS connection of its own for one large pull: just the part of the client protocol a
pull needs (CONNECT, SUB, PUB, MSG/HMSG, PING/PONG), and a `PullLink` over it.

Why not nats-py: its per-message path (a regular expression on the control line, two copies
of every payload, a header dict, a `Msg` and an asyncio queue hand-off to the subscription's
task) costs about 13 µs of CPU per message. The GPQA report of a 10,000-evaluation run reads
10,000 events of 5 kB: 130 ms of nats-py against 65 ms here, where bytes are received
straight into one buffer (`asyncio.BufferedProtocol`) and each body is copied out once.

Scope: one server (the one the api's nats-py client is connected to), plain TCP, and the
credentials of its URL (user and password, or a token). A deployment that needs more (TLS,
nkeys, a credentials file) reads through nats-py (`open_wire_link` returns None for it).
Protocol reference: https://docs.nats.io/reference/reference-protocols/nats-protocol
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from dataclasses import dataclass, field
from urllib.parse import ParseResult

import nats.errors

from bench_api.adapters.event_pull import OnDelivery

CONNECT_TIMEOUT_S = 5.0
BUFFER = 1 << 20
"""Initial receive buffer; it grows to hold the largest message (the server's max payload)."""
MAX_CONTROL_LINE = 64 * 1024
"""Longer than any line a server sends (its own limit is 4 KiB by default)."""
_CRLF = b"\r\n"
_PLAIN_HEADERS = b"NATS/1.0\r\n"
"""How a header block without a status starts (a status follows the version otherwise)."""
_SID = b"1"
"""The one subscription of a link."""


class WireError(nats.errors.Error):
    """The server refused the connection or a command (its `-ERR`), or broke the protocol."""


@dataclass(frozen=True)
class WireAddress:
    """Where and as whom to connect."""

    host: str
    port: int
    user: str | None = None
    password: str | None = field(default=None, repr=False)  # never in a log line
    token: str | None = field(default=None, repr=False)

    @classmethod
    def of(cls, url: ParseResult | None) -> WireAddress | None:
        """The address of a server URL as nats-py parses it, or None when this link cannot
        speak to it (not plain `nats://`)."""
        if url is None or url.scheme != "nats" or not url.hostname:
            return None
        # As nats-py reads them (not percent-decoded): the api's own connection works with them.
        user, password = url.username or None, url.password or None
        if user is not None and password is None:  # nats-py: a user without password is a token
            return cls(url.hostname, url.port or 4222, token=user)
        return cls(url.hostname, url.port or 4222, user=user, password=password)

    def connect_options(self) -> dict[str, object]:
        """The CONNECT command's options."""
        options: dict[str, object] = {
            "verbose": False, "pedantic": False, "headers": True, "no_responders": True,
            "protocol": 1, "lang": "python", "version": "bench-api-wire", "name": "bench-api-pull",
        }  # fmt: skip
        if self.token is not None:
            options["auth_token"] = self.token
        if self.user is not None:
            options["user"] = self.user
            options["pass"] = self.password
        return options


class _Frames(asyncio.BufferedProtocol):
    """Received bytes, cut into the server's protocol lines and messages."""

    def __init__(self, size: int) -> None:
        self._buffer = bytearray(size)
        self._view = memoryview(self._buffer)
        self._start = 0
        self._end = 0
        self.transport: asyncio.Transport | None = None
        self.on_delivery: OnDelivery | None = None
        self.lines: asyncio.Queue[bytes] = asyncio.Queue()
        """Control lines (INFO, +OK, -ERR, PONG) for the handshake."""
        self.closed: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()
        self.failure: Exception | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(exc)
        self.lines.put_nowait(b"")  # wakes a handshake waiting for a line
        if self.on_delivery is not None:  # a pull still waiting fails now (ignored once done)
            reason = f": {exc}" if exc else ""
            self.on_delivery("", "", f"the connection to NATS was closed{reason}", b"")

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._end == len(self._buffer):
            live = self._end - self._start
            if self._start and live <= len(self._buffer) // 2:
                self._buffer[:live] = self._view[self._start : self._end]
            else:  # a message larger than half the buffer: make room for it
                self._view.release()
                self._buffer = self._buffer[self._start : self._end] + bytearray(len(self._buffer))
                self._view = memoryview(self._buffer)
            self._start, self._end = 0, live
        return self._view[self._end :]

    def buffer_updated(self, nbytes: int) -> None:
        self._end += nbytes
        try:
            self._start = self._parse(self._start, self._end)
        except (ValueError, IndexError) as exc:  # a line that is not the protocol
            self._fail(WireError(f"unexpected data from the server: {exc}"))
            return
        if self._start == self._end:
            self._start = self._end = 0

    def _parse(self, start: int, end: int) -> int:
        """Hand over every complete line and message in `[start, end)`; where the first
        incomplete one starts."""
        buffer, view = self._buffer, self._view
        while True:
            eol = buffer.find(_CRLF, start, end)
            if eol < 0:
                if end - start > MAX_CONTROL_LINE:
                    raise ValueError(f"no line end in {end - start} bytes")
                return start
            headers = buffer.startswith(b"HMSG ", start)
            if headers or buffer.startswith(b"MSG ", start):
                # HMSG <subject> <sid> [reply] <header bytes> <total bytes>
                # MSG <subject> <sid> [reply] <bytes>
                parts = buffer[start:eol].split()
                total = int(parts[-1])
                header_size = int(parts[-2]) if headers else 0
                body = eol + 2
                if end - body < total + 2:
                    return start
                reply = parts[3] if len(parts) == (6 if headers else 5) else b""
                status = None
                if headers and not buffer.startswith(_PLAIN_HEADERS, body):
                    status = _status(bytes(view[body : body + header_size]))
                data = bytes(view[body + header_size : body + total])
                if self.on_delivery is not None:
                    self.on_delivery(parts[1].decode(), reply.decode(), status, data)
                start = body + total + 2
                continue
            line = bytes(view[start:eol])
            start = eol + 2
            if line == b"PING":
                assert self.transport is not None
                self.transport.write(b"PONG\r\n")
            elif line.startswith(b"-ERR"):
                self._fail(WireError(f"the server said {line.decode(errors='replace')}"))
                self.lines.put_nowait(line)
            else:  # INFO, +OK, PONG
                self.lines.put_nowait(line)

    def _fail(self, exc: Exception) -> None:
        self.failure = exc
        if self.on_delivery is not None:
            self.on_delivery("", "", str(exc), b"")
        if self.transport is not None:
            self.transport.close()


def _status(block: bytes) -> str | None:
    """The status of a header block (`NATS/1.0 404 No Messages`), None for plain headers."""
    first = block.split(_CRLF, 1)[0]
    parts = first.split(b" ", 1)
    return parts[1].decode(errors="replace").strip() if len(parts) > 1 else None


class WireLink:
    """A `PullLink` on a connection of its own (`open`), closed with the link."""

    def __init__(self, frames: _Frames) -> None:
        self._frames = frames

    @classmethod
    async def open(
        cls, address: WireAddress, *, timeout: float = CONNECT_TIMEOUT_S, buffer: int = BUFFER
    ) -> WireLink:
        """Connect, handshake and check the credentials (`buffer`: the receive buffer's
        initial size).

        Raises:
            WireError: the server refused the connection or needs TLS.
            OSError, TimeoutError: it could not be reached.
        """
        loop = asyncio.get_running_loop()
        _, frames = await asyncio.wait_for(
            loop.create_connection(lambda: _Frames(buffer), address.host, address.port), timeout
        )
        link = cls(frames)
        try:
            await asyncio.wait_for(link._handshake(address), timeout)
        except BaseException:
            await link.close()
            raise
        return link

    async def _handshake(self, address: WireAddress) -> None:
        info = await self._frames.lines.get()
        if not info.startswith(b"INFO "):
            raise WireError("the server did not introduce itself (no INFO)")
        if json.loads(info[5:]).get("tls_required"):
            raise WireError("the server requires TLS")
        connect = json.dumps(address.connect_options()).encode()
        self._write(b"CONNECT " + connect + b"\r\nPING\r\n")
        answer = await self._frames.lines.get()
        if answer != b"PONG":
            raise self._frames.failure or WireError("the connection was closed in the handshake")

    async def listen(self, on_delivery: OnDelivery) -> str:
        self._frames.on_delivery = on_delivery
        inbox = f"_INBOX.{secrets.token_hex(11)}"
        self._write(b"SUB " + inbox.encode() + b" " + _SID + b"\r\n")
        return inbox

    async def send(self, subject: str, payload: bytes, reply: str) -> None:
        if self._frames.failure is not None:
            raise self._frames.failure
        command = b"PUB %b %b %d\r\n" % (subject.encode(), reply.encode(), len(payload))
        self._write(command + payload + _CRLF)

    async def close(self) -> None:
        transport = self._frames.transport
        if transport is not None and not transport.is_closing():
            transport.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._frames.closed), 1.0)

    def _write(self, data: bytes) -> None:
        transport = self._frames.transport
        if transport is None or transport.is_closing():
            raise WireError("the connection to the server is closed")
        transport.write(data)
