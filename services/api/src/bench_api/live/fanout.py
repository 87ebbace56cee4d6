"""One feed, many open streams: a topic keeps a bounded log of recent frames and hands every
new frame to each subscriber's queue (references to the same bytes, no copies).

A client joining with a cursor gets, in order: what it missed before the log's floor (read
again from the streams by the caller, see `Join.replay`), the log's frames past its cursor,
`ready` once the topic has caught up with the streams, then every new frame. Its own cursor
decides what it is sent: a frame at or below the cursor in its stream is skipped, so overlaps
between those parts are harmless and nothing is sent twice.

A subscriber that stops reading is cut off once its queue passes a byte limit, instead of
holding the server's memory; the client reconnects with its `Last-Event-ID` and resumes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from bench_api.live.cursor import Cursor
from bench_api.live.frames import CONTROL, Frame, with_id
from bench_api.live.subscriber import Subscriber

MAX_LOG_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Join:
    """What a joining client is owed, in order.

    Attributes:
        subscriber: receives every frame published after the join.
        replay: (stream, after, upto) ranges the caller reads again from the streams,
            because the log no longer (or never did) hold them.
        backlog: the log's frames past the client's cursor.
        ready: True when the topic had caught up already (send `ready` after the backlog);
            otherwise the `ready` frame arrives through the subscriber.
    """

    subscriber: Subscriber
    replay: list[tuple[str, int, int]]
    backlog: list[Frame]
    ready: bool


class Topic:
    """The frames of one feed (all runs, or one run) for every client of this api replica.

    Args:
        floor: the positions the log starts after: it holds every frame derived from
            messages past `floor` (up to `position`).
        ready_frame: what to send once the topic has caught up with its streams.
    """

    def __init__(
        self, *, floor: Cursor, ready_frame: Frame, max_log_bytes: int = MAX_LOG_BYTES
    ) -> None:
        self.floor = floor
        self.position = floor
        self.caught_up = False
        self.ready_frame = ready_frame
        self._log: deque[Frame] = deque()
        self._log_bytes = 0
        self._max_log_bytes = max_log_bytes
        self._subscribers: set[Subscriber] = set()
        self.closed: str | None = None
        self.published = 0

    @property
    def subscribers(self) -> int:
        """Clients currently fed."""
        return len(self._subscribers)

    def publish(self, item: Frame) -> None:
        """Add a frame derived from message `item.seq` of `item.stream` and hand it out."""
        self.publish_many([item])

    def publish_many(self, items: list[Frame]) -> None:
        """Add frames (in stream order) and hand them out with one wake-up per client: a
        burst of 300 events costs each client one queue operation, not 300."""
        if not items:
            return
        stamped: list[Frame] = []
        size = 0
        for item in items:
            before = self.position
            self.position = before.advance(item.stream, item.seq)
            wire = with_id(item.body, self.position)
            frame = Frame(item.stream, item.seq, item.body, before, self.position, wire)
            stamped.append(frame)
            size += frame.size
        self._log.extend(stamped)
        self._log_bytes += size
        while self._log_bytes > self._max_log_bytes and len(self._log) > 1:
            dropped = self._log.popleft()
            self._log_bytes -= dropped.size
            self.floor = self.floor.advance(dropped.stream, dropped.seq)
        self.published += len(stamped)
        for subscriber in self._subscribers:
            subscriber.extend(stamped, size)

    def advance(self, stream: str, seq: int) -> None:
        """Record that message `seq` of `stream` was read and produced no frame (the log
        still holds every frame past its floor: this message added none)."""
        self.position = self.position.advance(stream, seq)

    def mark_caught_up(self) -> None:
        """The feed delivered everything its streams held when it started: send `ready`."""
        if self.caught_up:
            return
        self.caught_up = True
        for subscriber in self._subscribers:
            subscriber.push(self.ready_frame)

    def join(self, cursor: Cursor, *, write_interval_s: float = 0.0) -> Join:
        """Register a client whose stream is at `cursor` (no await: nothing slips between);
        its writer is woken at most once per `write_interval_s` (see `Subscriber`)."""
        subscriber = Subscriber(write_interval_s=write_interval_s)
        if self.closed is not None:
            subscriber.close(self.closed)
        else:
            self._subscribers.add(subscriber)
        replay = [
            (stream, cursor.get(stream), self.floor.get(stream))
            for stream in cursor.streams()
            if cursor.get(stream) < self.floor.get(stream)
        ]
        backlog = [f for f in self._log if not cursor.covers(f.stream, f.seq)]
        return Join(subscriber, replay, backlog, self.caught_up)

    def leave(self, subscriber: Subscriber) -> None:
        """Stop feeding a client that went away."""
        self._subscribers.discard(subscriber)

    def close(self, reason: str) -> None:
        """End every client's stream (the feed stopped, or the server is shutting down)."""
        self.closed = reason
        for subscriber in self._subscribers:
            subscriber.close(reason)
        self._subscribers.clear()


def deliver(frames: Iterable[Frame], cursor: Cursor) -> tuple[list[tuple[Frame, Cursor]], Cursor]:
    """The frames a client at `cursor` has not had yet, each with the cursor after it.

    Control frames always go out, carrying the current cursor.
    """
    out: list[tuple[Frame, Cursor]] = []
    for item in frames:
        if item.stream != CONTROL:
            if cursor.covers(item.stream, item.seq):
                continue
            cursor = cursor.advance(item.stream, item.seq)
        out.append((item, cursor))
    return out, cursor


def wire_bytes(frames: Iterable[Frame], cursor: Cursor) -> tuple[list[bytes], Cursor]:
    """What a client at `cursor` is sent for `frames`, and its cursor afterwards.

    A client whose id after a frame is the topic's (`after`) gets the frame's shared bytes;
    any other gets the same body under its own id (see `deliver`).
    """
    parts: list[bytes] = []
    for item in frames:
        after = item.after
        if item.wire is not None and after is not None and item.before is cursor:
            # In step with the topic, the common case: `cursor` is the very object the
            # topic stamped as `before`, so no arithmetic at all.
            parts.append(item.wire)
            cursor = after
            continue
        if item.stream != CONTROL:
            if cursor.covers(item.stream, item.seq):
                continue
            cursor = cursor.advance(item.stream, item.seq)
        if item.wire is not None and after is not None and cursor == after:
            # The same position under another object: a client that joined the all-runs
            # topic after messages that made no frame (the topic moved past them), say.
            parts.append(item.wire)
            cursor = after
        else:
            parts.append(with_id(item.body, cursor))
    return parts, cursor
