"""An HTTP proxy in front of an S3 server that fails, slows or records requests.

It parses every request (h11), so faults hit individual requests even on kept-alive
connections: `fail_puts=3` answers the next three PUTs (objects and parts) with an S3-style
503 `ServiceUnavailable` carrying a request id, and forwards everything else byte for byte.
Headers are passed on unchanged (names lower-cased, which HTTP allows), so the server checks
the client's SigV4 signature against the same `Host` the client signed.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass, field

import h11

READ_SIZE = 65536
_ERROR_BODY = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code>'
    b"<Message>injected by the test proxy</Message></Error>"
)


@dataclass
class FaultProxy:
    """Forwards 127.0.0.1:`port` to `upstream_port`, injecting the faults asked for.

    Attributes:
        fail_puts: how many of the next PUTs get a 503 (counts down).
        put_delay_s: pause before forwarding each PUT (to catch an upload mid-way).
        requests: (method, path, status) of every request answered, in order.
    """

    upstream_port: int
    port: int
    fail_puts: int = 0
    put_delay_s: float = 0.0
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    _server: asyncio.Server | None = None
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)

    async def start(self) -> None:
        """Listen on `port`."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def stop(self) -> None:
        """Stop listening and cut open connections."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def puts(self) -> list[tuple[str, int]]:
        """(path, status) of the PUT requests seen."""
        return [(path, status) for method, path, status in self.requests if method == "PUT"]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        downstream = h11.Connection(h11.SERVER)
        client = h11.Connection(h11.CLIENT)
        try:
            while True:
                request, body = await _read_message(downstream, reader, writer)
                if request is None:
                    return
                assert isinstance(request, h11.Request)
                # `expect` is not part of a SigV4 signature; the body is already read here.
                request = h11.Request(
                    method=request.method,
                    target=request.target,
                    headers=[(k, v) for k, v in request.headers if k != b"expect"],
                )
                method, path = request.method.decode(), request.target.decode()
                if method == "PUT" and self.put_delay_s:
                    await asyncio.sleep(self.put_delay_s)
                if method == "PUT" and self.fail_puts > 0:
                    self.fail_puts -= 1
                    response, reply = _service_unavailable(), _ERROR_BODY
                else:
                    if upstream is None:
                        upstream = await asyncio.open_connection("127.0.0.1", self.upstream_port)
                        self._writers.add(upstream[1])
                    upstream[1].write(client.send(request) or b"")
                    if body:
                        upstream[1].write(client.send(h11.Data(data=body)) or b"")
                    upstream[1].write(client.send(h11.EndOfMessage()) or b"")
                    await upstream[1].drain()
                    answer, reply = await _read_message(client, upstream[0])
                    if not isinstance(answer, h11.Response):
                        return  # the server closed the connection
                    response = answer
                self.requests.append((method, path, response.status_code))
                writer.write(downstream.send(response) or b"")
                if reply:
                    writer.write(downstream.send(h11.Data(data=reply)) or b"")
                writer.write(downstream.send(h11.EndOfMessage()) or b"")
                await writer.drain()
                if downstream.our_state is not h11.DONE or client.our_state not in {
                    h11.DONE,
                    h11.IDLE,
                }:
                    return
                downstream.start_next_cycle()
                if client.our_state is h11.DONE:
                    client.start_next_cycle()
        except (ConnectionError, OSError, h11.ProtocolError):
            return
        finally:
            for w in (writer, upstream[1] if upstream else None):
                if w is not None:
                    self._writers.discard(w)
                    with contextlib.suppress(Exception):
                        w.close()


async def _read_message(
    conn: h11.Connection,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter | None = None,
) -> tuple[h11.Request | h11.Response | None, bytes]:
    """The next request (or response) and its whole body; (None, b"") at end of stream.

    On the server side (`writer` given) a client waiting for `100 Continue` gets it.
    """
    head: h11.Request | h11.Response | None = None
    body = bytearray()
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            if writer is not None and conn.they_are_waiting_for_100_continue:
                writer.write(
                    conn.send(h11.InformationalResponse(status_code=100, headers=[])) or b""
                )
                await writer.drain()
            conn.receive_data(await reader.read(READ_SIZE))
            continue
        if isinstance(event, h11.ConnectionClosed):
            return None, b""
        if isinstance(event, h11.Request | h11.Response):
            head = event
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            return head, bytes(body)


def _service_unavailable() -> h11.Response:
    return h11.Response(
        status_code=503,
        headers=[
            ("content-type", "application/xml"),
            ("content-length", str(len(_ERROR_BODY))),
            ("x-amz-request-id", f"INJECTED{secrets.token_hex(6).upper()}"),
        ],
    )
