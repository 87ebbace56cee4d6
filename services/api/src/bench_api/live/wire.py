"""What a run's stream says about each event: the event's JSON, trimmed and in camelCase.

Works on the JSON bodies as published (one `json.loads` per message, whatever the number of
clients). Never forwards a credential: `RunRequested.credentials` (sealed, but still no
business of a browser) is dropped. `SampleCompleted` keeps what the page shows (score,
answer, latency, usage), not the trajectory; attempt records go out whole (the runner already
sanitised them: no `Authorization`, bounded bodies).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic.alias_generators import to_camel

from bench_api.live.frames import Frame, frame

ENVELOPE = ("event_id", "run_id", "occurred_at", "schema_version")
VERBATIM = frozenset(
    {
        "request", "request_body", "tool_call_deltas", "tool_calls", "reasoning_details",
        "benchmark_options", "details", "spec", "metadata",
    }
)  # fmt: skip
"""Keys whose values are foreign JSON (request bodies, tool calls, free-form options)."""
SAMPLE_FIELDS = (
    "sample_id", "sample_index", "epoch", "score", "answer", "target", "explanation",
    "latency_ms", "usage",
)  # fmt: skip
EXPLANATION_LIMIT = 2000


@functools.lru_cache(maxsize=4096)
def _key(name: str) -> str:
    # pydantic's to_camel runs regular expressions: worth remembering, keys repeat endlessly.
    return to_camel(name)


def camel(value: Any) -> Any:
    """snake_case keys -> camelCase, recursively, except inside `VERBATIM` values."""
    if isinstance(value, dict):
        return {_key(k): (v if k in VERBATIM else camel(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(v) for v in value]
    return value


def event_name(subject: str) -> str:
    """`bench.runs.<run>.sample_completed` -> `sample_completed`."""
    return subject.rsplit(".", 1)[-1]


def run_id_of(subject: str) -> str:
    """`bench.runs.<run>.<event>` -> `<run>`."""
    return subject.split(".", 3)[2]


def payload(name: str, body: dict[str, Any]) -> dict[str, Any]:
    """The event's own fields as the page receives them (camelCase, trimmed)."""
    fields = {k: v for k, v in body.items() if k not in ENVELOPE}
    if name == "run_requested":
        fields.pop("credentials", None)
    elif name == "sample_completed":
        record = fields.get("record") or {}
        sample = {k: record.get(k) for k in SAMPLE_FIELDS}
        explanation = sample.get("explanation")
        if isinstance(explanation, str) and len(explanation) > EXPLANATION_LIMIT:
            sample["explanation"] = explanation[:EXPLANATION_LIMIT] + "…"
        fields = {"record": sample, "runner_id": fields.get("runner_id")}
    elif name.startswith("request_attempt_"):
        fields = dict(fields.get("record") or {})
    return dict(camel(fields))


def run_frame(stream: str, seq: int, subject: str, data: bytes) -> Frame:
    """The frame of one message of a run's stream (BENCH_EVENTS or BENCH_LIVE).

    The SSE event name is the event's name (`request_attempt_progressed`, `run_finished`...);
    data is `{seq, at, ...payload}`.
    """
    name = event_name(subject)
    try:
        body = json.loads(data)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return frame(stream, seq, "undecodable", {"seq": seq, "subject": subject})
    return frame(
        stream, seq, name, {"seq": seq, "at": body.get("occurred_at"), **payload(name, body)}
    )
