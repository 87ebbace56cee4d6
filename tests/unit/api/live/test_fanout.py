"""Fan-out: one topic's frames reach every subscriber once, in order, from any cursor."""

from __future__ import annotations

import asyncio
import random

import pytest

from bench_api.live.cursor import Cursor
from bench_api.live.fanout import Topic, deliver, wire_bytes
from bench_api.live.frames import Frame, control, frame, with_id
from bench_api.live.subscriber import Subscriber
from bench_common.envelope import STREAM_EVENTS as E
from bench_common.envelope import STREAM_LIVE as L

READY = control("ready", {})


def f(stream: str, seq: int) -> Frame:
    return frame(stream, seq, "x", {"seq": seq, "stream": stream})


def positions(frames: list[tuple[Frame, Cursor]]) -> list[tuple[str, int]]:
    return [(item.stream, item.seq) for item, _ in frames]


def plain(frames: list[Frame]) -> list[tuple[str, int, bytes]]:
    """Frames without what publishing stamps on them."""
    return [(item.stream, item.seq, item.body) for item in frames]


def run_topic(**kwargs: int) -> Topic:
    return Topic(floor=Cursor(0, 0), ready_frame=READY, **kwargs)


def test_every_subscriber_gets_each_new_frame_once_in_order() -> None:
    topic = run_topic()
    joins = [topic.join(Cursor(0, 0)) for _ in range(3)]
    published = [f(E, 1), f(L, 1), f(E, 4), f(L, 2)]
    for item in published:
        topic.publish(item)
    for join in joins:
        assert join.backlog == [] and join.replay == []
        assert plain(join.subscriber.take()) == plain(published)
    assert topic.position == Cursor(4, 2)


def test_a_late_joiner_gets_the_log_past_its_cursor_and_nothing_twice() -> None:
    topic = run_topic()
    for item in (f(E, 1), f(L, 1), f(E, 2), f(L, 2), f(E, 3)):
        topic.publish(item)
    join = topic.join(Cursor(2, 1))
    assert [(i.stream, i.seq) for i in join.backlog] == [(L, 2), (E, 3)]
    topic.publish(f(L, 3))
    sent, cursor = deliver([*join.backlog, *join.subscriber.take()], Cursor(2, 1))
    assert positions(sent) == [(L, 2), (E, 3), (L, 3)]
    assert [after.encode() for _, after in sent] == ["2-2", "3-2", "3-3"]
    assert cursor == Cursor(3, 3)


def test_ids_never_move_back_when_the_log_interleaves_streams() -> None:
    # The client has events up to 10 but live only up to 1; the log's live frames sit
    # before events 5..10 in hub order. Its ids must keep events=10, or a reconnect would
    # get events 5..10 again.
    topic = run_topic()
    for item in (f(L, 1), f(E, 5), f(L, 2), f(E, 10), f(L, 3)):
        topic.publish(item)
    sent, cursor = deliver(topic.join(Cursor(10, 1)).backlog, Cursor(10, 1))
    assert [after.encode() for _, after in sent] == ["10-2", "10-3"]
    assert cursor == Cursor(10, 3)


def test_a_cursor_older_than_the_log_asks_for_a_replay_of_the_gap() -> None:
    topic = run_topic(max_log_bytes=1)  # keeps only the newest frame
    for item in (f(E, 1), f(L, 1), f(E, 2), f(L, 7)):
        topic.publish(item)
    assert topic.floor == Cursor(2, 1)
    join = topic.join(Cursor(0, 0))
    assert join.replay == [(E, 0, 2), (L, 0, 1)]
    assert [(i.stream, i.seq) for i in join.backlog] == [(L, 7)]


def test_an_all_runs_topic_starts_now_and_skips_messages_without_frames() -> None:
    topic = Topic(floor=Cursor(100), ready_frame=READY)
    topic.advance(E, 101)
    assert topic.position == Cursor(101) and topic.floor == Cursor(100)
    topic.publish(f(E, 102))
    topic.advance(E, 103)
    assert topic.position == Cursor(103) and topic.floor == Cursor(100)
    assert topic.join(Cursor(103)).backlog == []
    late = topic.join(Cursor(100))
    assert late.replay == [] and [i.seq for i in late.backlog] == [102]
    assert topic.join(Cursor(50)).replay == [(E, 50, 100)]


def test_ready_follows_the_backlog_or_arrives_when_the_topic_catches_up() -> None:
    topic = run_topic()
    early = topic.join(Cursor(0, 0))
    assert early.ready is False
    topic.publish(f(E, 1))
    topic.mark_caught_up()
    topic.mark_caught_up()  # once only
    assert plain(early.subscriber.take()) == plain([f(E, 1), READY])
    late = topic.join(Cursor(0, 0))
    assert late.ready is True
    sent, _ = deliver([READY], Cursor(3, 4))
    assert [after for _, after in sent] == [Cursor(3, 4)]  # control frames carry the cursor


def test_a_subscriber_that_stops_reading_is_cut_off_not_buffered_forever() -> None:
    topic = run_topic()
    join = topic.join(Cursor(0, 0))
    join.subscriber._max_bytes = 500
    for seq in range(1, 20):
        topic.publish(f(E, seq))
    assert join.subscriber.closed is not None
    assert join.subscriber.take() == []
    other = topic.join(Cursor(0, 0))
    assert len(other.backlog) == 19  # the topic itself is unaffected


def test_closing_a_topic_ends_every_subscriber() -> None:
    topic = run_topic()
    joins = [topic.join(Cursor(0, 0)) for _ in range(2)]
    topic.close("stopping")
    assert all(j.subscriber.closed == "stopping" for j in joins)
    assert topic.join(Cursor(0, 0)).subscriber.closed == "stopping"
    assert topic.subscribers == 0


async def test_wait_returns_frames_as_they_arrive_or_nothing_after_the_timeout() -> None:
    subscriber = Subscriber()
    assert await subscriber.wait(0.01) == []
    waiting = asyncio.create_task(subscriber.wait(5))
    await asyncio.sleep(0)
    subscriber.push(f(E, 1))
    assert await asyncio.wait_for(waiting, 1) == [f(E, 1)]


@pytest.mark.parametrize("seed", range(20))
def test_resuming_from_any_id_yields_exactly_the_remaining_frames(seed: int) -> None:
    """Random interleavings and log sizes: whatever id a client stopped at, the replay of the
    gap plus the log plus new frames is exactly what it had not received."""
    rng = random.Random(seed)
    topic = run_topic(max_log_bytes=rng.choice([1, 400, 2000, 10**9]))
    streams = {E: 0, L: 0}
    history: list[Frame] = []
    for _ in range(60):
        stream = rng.choice([E, L])
        streams[stream] += rng.randint(1, 3)
        item = f(stream, streams[stream])
        history.append(item)
        topic.publish(item)
    first, _ = deliver(history, Cursor(0, 0))
    stop = rng.randrange(len(first))
    cursor = first[stop][1]
    join = topic.join(cursor)
    replayed = [
        item for stream, after, upto in join.replay for item in history
        if item.stream == stream and after < item.seq <= upto
    ]  # fmt: skip
    later = [f(E, streams[E] + 1), f(L, streams[L] + 1)]
    for item in later:
        topic.publish(item)
    sent, _ = deliver([*replayed, *join.backlog, *join.subscriber.take()], cursor)
    expected = [item for item, _ in first[stop + 1 :]] + later
    assert sorted(positions(sent)) == sorted((i.stream, i.seq) for i in expected)
    assert len(sent) == len(expected)


def test_clients_in_step_share_the_encoded_bytes_and_others_get_the_same_ids() -> None:
    topic = run_topic()
    for item in (f(E, 1), f(L, 1)):
        topic.publish(item)
    in_step = topic.join(topic.position)
    ahead = topic.join(Cursor(9, 0))  # resumed here from a replica further along
    for item in (f(E, 2), f(L, 2), f(E, 12), f(L, 3)):
        topic.publish(item)
    frames = in_step.subscriber.take()
    shared, cursor = wire_bytes(frames, Cursor(1, 1))
    assert all(part is item.wire for part, item in zip(shared, frames, strict=True))
    assert cursor == Cursor(12, 3)
    slow, _ = deliver(frames, Cursor(1, 1))
    assert shared == [with_id(item.body, after) for item, after in slow]
    others, cursor = wire_bytes(ahead.subscriber.take(), Cursor(9, 0))
    ids = [p.split(b"\n", 1)[0] for p in others]
    assert ids == [b"id: 9-2", b"id: 12-2", b"id: 12-3"]  # events 2 it already had
    assert cursor == Cursor(12, 3)


def test_a_client_at_the_same_position_as_the_topic_shares_its_bytes_too() -> None:
    # The all-runs topic moves past messages that make no frame: a client that joined after
    # them (or is one frame behind them) is at the topic's position under another object.
    topic = Topic(floor=Cursor(100), ready_frame=READY)
    topic.publish(f(E, 101))
    before_skips = topic.position
    topic.advance(E, 105)
    joined_later = topic.position
    topic.publish(f(E, 106))
    item = topic.join(Cursor(100)).backlog[-1]
    for cursor in (before_skips, joined_later, Cursor(101), Cursor(105)):
        parts, after = wire_bytes([item], cursor)
        assert parts[0] is item.wire and after is item.after
    parts, after = wire_bytes([item], Cursor(106))
    assert parts == [] and after == Cursor(106)  # already had it


async def test_writes_are_paced_to_one_per_slot_and_every_subscriber_wakes_together() -> None:
    interval = 0.2
    loop = asyncio.get_running_loop()
    subscribers = [Subscriber(write_interval_s=interval) for _ in range(3)]
    for subscriber in subscribers:
        subscriber.push(f(E, 1))  # nothing written in this slot yet: awake at once
    assert [len(await s.wait(1)) for s in subscribers] == [1, 1, 1]
    written_in = loop.time() // interval
    for subscriber in subscribers:
        subscriber.push(f(E, 2))
        subscriber.push(f(E, 3))
    woken = await asyncio.gather(*(s.wait(1) for s in subscribers))
    assert [len(frames) for frames in woken] == [2, 2, 2]  # the burst in one write each
    assert loop.time() >= (written_in + 1) * interval  # at the next slot, not before


async def test_closing_a_paced_subscriber_wakes_its_writer_at_once() -> None:
    subscriber = Subscriber(write_interval_s=30.0)
    subscriber.push(f(E, 1))
    assert len(await subscriber.wait(1)) == 1
    subscriber.push(f(E, 2))  # the next write may come only in 30 s
    waiting = asyncio.create_task(subscriber.wait(60))
    await asyncio.sleep(0)
    subscriber.close("stopping")
    assert await asyncio.wait_for(waiting, 1) == []
    assert subscriber.closed == "stopping"
