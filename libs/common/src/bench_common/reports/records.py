"""Reading evaluation records the way every report does: de-duplicated, ordered, and with the
model's response, reasoning and outcome pulled out of the chat trajectory."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import JsonValue

from bench_common.evaluation import EvaluationRecord

Outcome = Literal["correct", "wrong", "no_answer", "skipped"]


def unique_records(records: Iterable[EvaluationRecord]) -> list[EvaluationRecord]:
    """The first record of each (sample id, epoch), ordered by sample index, id and epoch.

    The first one wins, as everywhere in the system: a redelivered `SampleCompleted` carries
    the same evaluation again and must not count twice.
    """
    unique: dict[tuple[str, int], EvaluationRecord] = {}
    for record in records:
        unique.setdefault((record.sample_id, record.epoch), record)
    return sorted(unique.values(), key=lambda r: (r.sample_index, r.sample_id, r.epoch))


def outcome(record: EvaluationRecord) -> Outcome:
    """correct (C), skipped (S), or for I: wrong when an answer was extracted, else no_answer."""
    if record.score == "C":
        return "correct"
    if record.score == "S":
        return "skipped"
    return "wrong" if record.answer else "no_answer"


def _last_assistant(record: EvaluationRecord) -> dict[str, JsonValue] | None:
    for message in reversed(record.messages):
        if message.get("role") == "assistant":
            return message
    return None


def response_and_reasoning(record: EvaluationRecord) -> tuple[str, str]:
    """(content, exposed reasoning) of the last assistant message ("" for what is missing).

    The reasoning is the message's `reasoning`, else the text or summary of its
    `reasoning_details`.
    """
    message = _last_assistant(record)
    if message is None:
        return "", ""
    return _content(message.get("content")), _reasoning(message)


def _content(content: JsonValue) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _reasoning(message: dict[str, JsonValue]) -> str:
    reasoning = message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        return reasoning
    details = message.get("reasoning_details")
    if not isinstance(details, list):
        return ""
    parts: list[str] = []
    for detail in details:
        if isinstance(detail, dict):
            text = detail.get("text") or detail.get("summary")
            if isinstance(text, str):
                parts.append(text)
    return "\n".join(parts)


def subdomain(record: EvaluationRecord) -> str | None:
    """`metadata.subdomain` (GPQA), or None."""
    value = record.metadata.get("subdomain")
    return value if isinstance(value, str) and value else None
