"""A run's stream: every event as the page receives it, never a credential."""

from __future__ import annotations

import json
from typing import Any

from bench_api.live.cursor import Cursor
from bench_api.live.frames import Frame, with_id
from bench_api.live.wire import camel, run_frame
from bench_common.attempts import AttemptProgressed
from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE, utc_now
from bench_common.evaluation import EvaluationRecord
from bench_common.events import (
    RequestAttemptProgressed,
    RunRequested,
    SampleCompleted,
    SealedSecret,
)
from bench_common.run_config import RunConfig


def decode(item: Frame) -> tuple[str, dict[str, Any]]:
    lines = item.body.decode().split("\n")
    assert lines[0].startswith("event: ") and lines[1].startswith("data: ")
    assert lines[2:] == ["", ""]
    data: dict[str, Any] = json.loads(lines[1][len("data: ") :])
    return lines[0][len("event: ") :], data


def test_run_requested_goes_out_without_credentials() -> None:
    config = RunConfig(benchmark="gpqa_diamond", model="m", epochs=1, concurrency=1)
    event = RunRequested(
        run_id="r1", config=config, triggered_by_email="a@example.com",
        credentials={"api_key": SealedSecret(key_id="k", nonce="n", ciphertext="SEALED")},
    )  # fmt: skip
    name, data = decode(run_frame(STREAM_EVENTS, 7, "bench.runs.r1.run_requested",
                                  event.model_dump_json().encode()))  # fmt: skip
    assert name == "run_requested"
    assert "credentials" not in data and "SEALED" not in json.dumps(data)
    assert data["seq"] == 7 and data["triggeredByEmail"] == "a@example.com"
    assert data["config"]["baseUrl"] == config.base_url
    assert data["config"]["inference"]["maxRetries"] == 6


def test_sample_completed_keeps_the_score_not_the_trajectory() -> None:
    record = EvaluationRecord(
        sample_id="s1", sample_index=3, epoch=1, score="C", answer="B", target="B",
        messages=[{"role": "user", "content": "x" * 5000}], input="question", latency_ms=1200,
        explanation="e" * 5000,
    )  # fmt: skip
    event = SampleCompleted(run_id="r1", record=record, runner_id="runner-1")
    _, data = decode(run_frame(STREAM_EVENTS, 9, "bench.runs.r1.sample_completed",
                               event.model_dump_json().encode()))  # fmt: skip
    assert data["record"]["sampleId"] == "s1" and data["record"]["latencyMs"] == 1200
    assert "messages" not in data["record"] and "input" not in data["record"]
    assert len(data["record"]["explanation"]) < 2100
    assert data["runnerId"] == "runner-1"


def test_attempt_deltas_go_out_whole_with_foreign_json_untouched() -> None:
    record = AttemptProgressed(
        request_id="q1", call_id="c1", session_id="s", attempt=1, model="m", url="u",
        started_at=utc_now(), observed_at=utc_now(), elapsed_ms=900, received_bytes=321,
        content_delta="Hello\nworld",
        tool_call_deltas=[{"function": {"arguments": "{\"a_b\": 1}"}}],
    )  # fmt: skip
    event = RequestAttemptProgressed(run_id="r1", record=record)
    item = run_frame(STREAM_LIVE, 3, "bench.live.r1.request_attempt_progressed",
                     event.model_dump_json().encode())  # fmt: skip
    name, data = decode(item)
    assert name == "request_attempt_progressed"
    assert data["requestId"] == "q1" and data["receivedBytes"] == 321
    assert data["contentDelta"] == "Hello\nworld"  # the newline stays inside one data line
    assert data["toolCallDeltas"] == [{"function": {"arguments": '{"a_b": 1}'}}]
    assert with_id(item.body, Cursor(5, 3)).startswith(b"id: 5-3\nevent: request_attempt")


def test_an_undecodable_message_becomes_a_marker_not_a_crash() -> None:
    name, data = decode(run_frame(STREAM_EVENTS, 4, "bench.runs.r1.sample_started", b"{oops"))
    assert name == "undecodable" and data["seq"] == 4


def test_camel_leaves_request_bodies_alone() -> None:
    body = {"request_body": {"max_tokens": 5}, "usage": {"output_tokens": 3}}
    assert camel(body) == {"requestBody": {"max_tokens": 5}, "usage": {"outputTokens": 3}}
