"""SSE ids: encoding, parsing, and the positions they carry."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench_api.live.cursor import MAX_SEQUENCE, Cursor, CursorError, decode_cursor
from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE

seqs = st.integers(min_value=0, max_value=MAX_SEQUENCE)


@given(events=seqs, live=seqs)
def test_a_run_cursor_round_trips(events: int, live: int) -> None:
    cursor = Cursor(events, live)
    assert decode_cursor(cursor.encode(), with_live=True) == cursor


@given(events=seqs)
def test_an_all_runs_cursor_round_trips(events: int) -> None:
    assert decode_cursor(Cursor(events).encode(), with_live=False) == Cursor(events)


def test_ids_look_like_the_documented_examples() -> None:
    assert Cursor(4812, 977).encode() == "4812-977"
    assert Cursor(4812).encode() == "4812"


@pytest.mark.parametrize(
    ("text", "with_live"),
    [("", True), ("12", True), ("12-", True), ("a-1", True), ("1-2-3", True), ("-1-2", True),
     ("12-5", False), ("x", False), ("1.5", False), ("99999999999999999999", False),
     ("9999999999999999999-1", True)],
)  # fmt: skip
def test_ids_no_stream_produced_are_refused(text: str, with_live: bool) -> None:
    with pytest.raises(CursorError):
        decode_cursor(text, with_live=with_live)


def test_whitespace_around_an_id_is_ignored() -> None:
    assert decode_cursor(" 7-3 ", with_live=True) == Cursor(7, 3)


def test_advance_never_moves_back_and_covers_what_was_sent() -> None:
    cursor = Cursor(10, 5).advance(STREAM_EVENTS, 12).advance(STREAM_LIVE, 4)
    assert cursor == Cursor(12, 5)
    assert cursor.covers(STREAM_EVENTS, 12)
    assert not cursor.covers(STREAM_EVENTS, 13)
    assert cursor.covers(STREAM_LIVE, 5)
    assert not cursor.covers(STREAM_LIVE, 6)


def test_an_all_runs_cursor_does_not_track_the_live_stream() -> None:
    with pytest.raises(KeyError):
        Cursor(3).advance(STREAM_LIVE, 1)
    assert Cursor(3).streams() == (STREAM_EVENTS,)
    assert Cursor(3, 0).streams() == (STREAM_EVENTS, STREAM_LIVE)
