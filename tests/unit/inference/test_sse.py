"""SSE framing: blank-line events, joined data lines, comments, line endings, chunking."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from bench_runner.inference.sse import SseDecoder, looks_like_sse

STREAM = (
    b": OPENROUTER PROCESSING\n\n"
    b'data: {"a":1}\n\n'
    b'event: message\nid: 7\ndata: {"b":\ndata: 2}\n\n'
    b": comment between events\n\n"
    b'data:{"c":3}\n\n'
    b"data: [DONE]\n\n"
)
PAYLOADS = [b'{"a":1}', b'{"b":\n2}', b'{"c":3}', b"[DONE]"]


def decode_all(chunks: list[bytes]) -> list[bytes]:
    decoder = SseDecoder()
    out: list[bytes] = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    return out + decoder.finish()


def test_events_split_on_blank_lines_and_data_lines_are_joined() -> None:
    assert decode_all([STREAM]) == PAYLOADS


def test_comments_and_events_without_data_yield_nothing() -> None:
    assert decode_all([b": OPENROUTER PROCESSING\n\nretry: 100\n\n: x\n\n"]) == []


def test_crlf_and_lone_cr_line_endings() -> None:
    crlf = STREAM.replace(b"\n", b"\r\n")
    cr = STREAM.replace(b"\n", b"\r")
    assert decode_all([crlf]) == PAYLOADS
    assert decode_all([cr]) == PAYLOADS


def test_crlf_pair_split_between_chunks_is_not_an_event_boundary() -> None:
    assert decode_all([b'data: {"a":\r', b"\ndata: 1}\r\n\r\n"]) == [b'{"a":\n1}']


def test_last_event_without_trailing_blank_line_is_kept() -> None:
    assert decode_all([b'data: {"a":1}\n\ndata: {"z":0}']) == [b'{"a":1}', b'{"z":0}']
    assert decode_all([b'data: {"z":0}\n']) == [b'{"z":0}']


def test_only_one_leading_space_is_stripped() -> None:
    assert decode_all([b"data:  x\n\n"]) == [b" x"]


@given(st.lists(st.integers(min_value=1, max_value=len(STREAM) - 1), unique=True, max_size=12))
def test_any_chunking_gives_the_same_payloads(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in itertools.pairwise(bounds)]
    assert decode_all(chunks) == PAYLOADS
    crlf = STREAM.replace(b"\n", b"\r\n")
    bounds = [0, *sorted(c for c in cuts if c < len(crlf)), len(crlf)]
    assert decode_all([crlf[a:b] for a, b in itertools.pairwise(bounds)]) == PAYLOADS


def test_json_or_sse_is_told_by_the_first_bytes() -> None:
    assert looks_like_sse(b": OPENROUTER PROCESSING\n\n")
    assert looks_like_sse(b"data: {}")
    assert looks_like_sse(b"<html>")
    assert not looks_like_sse(b'\n  {"choices": []}')
    assert not looks_like_sse(b"[1]")
