"""Attempt records: started / progress / completed, lineage, bounded bodies, no secrets."""

from __future__ import annotations

import pytest

from bench_common.attempts import BODY_PREVIEW_LIMIT, AttemptProgressed
from bench_common.run_config import InferenceOptions
from bench_runner.fake_model import HttpError, MidStreamError, Reply, ToolCallReply
from bench_runner.inference import ModelError
from tests.unit.inference.fakes import API_KEY, CALL, SESSION_ID, harness, user_request


async def test_one_attempt_records_started_progress_completed() -> None:
    reply = Reply(
        content="Answer: B",
        reasoning="hmm",
        tool_calls=[ToolCallReply("f", "{}", id="c1")],
        provider="Lambda",
        generation_id="gen-7",
    )
    run = InferenceOptions.model_validate(
        {"temperature": 0.7, "maxTokens": 64, "timeoutMs": 5000, "completionTimeoutMs": 9000}
    )
    async with harness([reply], options=run) as h:
        result = await h.model.complete(user_request(), call=CALL)
    events = [r.event for r in h.sink.records]
    assert events == ["started", "progress", "completed"]
    started, progress, completed = h.sink.records
    assert started.request_id == progress.request_id == completed.request_id == result.request_id
    assert started.session_id == SESSION_ID
    assert (started.sample_id, started.epoch, started.attempt) == ("gpqa_diamond-7", 2, 1)
    assert started.url.endswith("/v1/chat/completions")
    assert started.model_dump()["request"] == {
        "messages": 1,
        "stream": True,
        "temperature": 0.7,
        "max_tokens": 64,
        "reasoning_effort": None,
        "endpoint_id": None,
        "timeout_ms": 5000,
        "completion_timeout_ms": 9000,
    }
    assert started.model_dump()["request_body"]["messages"] == [
        {"role": "user", "content": "What is 2 + 2?"}
    ]
    assert isinstance(progress, AttemptProgressed)
    assert progress.content_delta == "Answer: B"
    assert progress.reasoning_delta == "hmm"
    assert progress.tool_call_deltas
    assert progress.received_bytes > 0
    assert progress.time_to_first_output_ms is not None
    completed_record = h.sink.completed()[0]
    assert completed_record.ok
    assert completed_record.status == 200
    assert completed_record.provider_name == "Lambda"
    assert completed_record.generation_id == "gen-7"
    assert completed_record.response_content == "Answer: B"
    assert completed_record.reasoning == "hmm"
    assert completed_record.tool_calls == [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ]
    assert completed_record.usage is not None
    assert completed_record.usage.cost > 0
    assert completed_record.response is None
    assert completed_record.failure_stage is None


async def test_progress_is_at_most_once_per_second_while_streaming() -> None:
    reply = Reply(content=[f"t{i} " for i in range(24)], duration=1.3)
    async with harness([reply]) as h:
        result = await h.model.complete(user_request(), call=CALL)
    progress = [r for r in h.sink.records if isinstance(r, AttemptProgressed)]
    assert len(progress) == 2  # one after the first second, one flushing the rest at the end
    assert progress[1].elapsed_ms - progress[0].elapsed_ms < 1000
    assert progress[0].elapsed_ms >= 1000
    assert "".join(p.content_delta for p in progress) == result.content


async def test_retries_share_a_call_id_and_chain_previous_request_ids() -> None:
    replies = [Reply(fault=HttpError(503, "busy")), Reply(fault=MidStreamError()), Reply()]
    async with harness(replies) as h:
        result = await h.model.complete(user_request(), call=CALL)
        await h.model.complete(user_request(), call=CALL)
    started = h.sink.started()
    assert [s.attempt for s in started] == [1, 2, 3, 1]
    assert len({s.call_id for s in started[:3]}) == 1
    assert started[3].call_id != started[0].call_id
    assert started[0].previous_request_id is None
    assert started[1].previous_request_id == started[0].request_id
    assert started[2].previous_request_id == started[1].request_id
    assert started[2].request_id == result.request_id
    first, second, third, _ = h.sink.completed()
    assert (first.ok, first.status, first.failure_stage) == (False, 503, "http")
    assert first.error == "busy"
    assert first.error_class == "http_status"
    assert first.retryable is True
    assert first.response is not None
    assert "busy" in first.response
    assert (second.status, second.failure_stage) == (502, "response_processing")
    assert second.response is not None
    assert "upstream died" in second.response
    assert third.ok
    assert third.response is None


async def test_large_request_bodies_are_stored_as_bounded_previews() -> None:
    big = "x" * 300_000
    async with harness([Reply()]) as h:
        await h.model.complete(user_request(big), call=CALL)
        sent = h.server.requests[0]
    assert sent.body["messages"][0]["content"] == big  # the endpoint still gets everything
    body = h.sink.started()[0].request_body
    assert isinstance(body, dict)
    assert body["truncated"] is True
    assert isinstance(body["original_characters"], int)
    assert body["original_characters"] > 300_000
    assert isinstance(body["preview"], str)
    assert len(body["preview"]) == BODY_PREVIEW_LIMIT


async def test_no_key_in_any_record_even_when_the_server_echoes_it() -> None:
    echo = f"Invalid API key {API_KEY}"
    replies = [Reply(fault=HttpError(500, echo)), Reply(fault=HttpError(401, echo))]
    async with harness(replies) as h:
        with pytest.raises(ModelError) as caught:
            await h.model.complete(user_request(), call=CALL)
    assert API_KEY not in str(caught.value)
    assert API_KEY not in (caught.value.body or "")
    assert all(API_KEY not in n.message for n in h.notices)
    serialized = "\n".join(r.model_dump_json() for r in h.sink.records)
    assert "[redacted]" in serialized
    assert API_KEY not in serialized
    assert "Authorization" not in serialized
    assert "Bearer" not in serialized


async def test_no_key_in_records_of_a_successful_call() -> None:
    async with harness([Reply()]) as h:
        await h.model.complete(user_request(), call=CALL)
    serialized = "\n".join(r.model_dump_json() for r in h.sink.records)
    assert API_KEY not in serialized
    assert "Bearer" not in serialized
