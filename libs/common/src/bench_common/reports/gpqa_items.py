"""GPQA report items: one per evaluation, with the question and choices parsed back out of the
prompt (the original stores only the rendered prompt, and so do we)."""

from __future__ import annotations

from typing import Any, NamedTuple

from bench_common.evaluation import EvaluationRecord
from bench_common.reports.records import Outcome, subdomain

LETTERS = ("A", "B", "C", "D")
_INSTRUCTION_START = "Answer the following multiple choice question."
PARSED_KEYS = ("question", "choices", "correctAnswerText")
"""Item keys whose values come from the question's parsed prompt (in item order): the report
parses one prompt per question and every epoch of the question shows that parse."""


class ParsedPrompt(NamedTuple):
    """The question text and the choices shown at A-D (empty when the prompt has no choices)."""

    question: str
    choices: dict[str, str]


def parse_prompt(prompt: str) -> ParsedPrompt:
    """Split a rendered GPQA prompt into its question and its A-D choices.

    The prompt is the instruction paragraph, a blank line, the question, a blank line, then
    `A) ...` to `D) ...` on their own lines. Anything that does not follow that layout is
    returned whole as the question, with no choices.
    """
    start = prompt.rfind("\n\nA) ")
    if start < 0:
        return ParsedPrompt(prompt, {})
    positions = [start + 2]
    for letter in LETTERS[1:]:
        found = prompt.find(f"\n{letter}) ", positions[-1])
        if found < 0:
            return ParsedPrompt(prompt, {})
        positions.append(found + 1)
    ends = [p - 1 for p in positions[1:]] + [len(prompt)]
    choices = {
        letter: prompt[pos + 3 : end]
        for letter, pos, end in zip(LETTERS, positions, ends, strict=True)
    }
    head = prompt[:start]
    if head.startswith(_INSTRUCTION_START) and "\n\n" in head:
        head = head.split("\n\n", 1)[1]
    return ParsedPrompt(head, choices)


def report_item(
    record: EvaluationRecord,
    status: Outcome,
    parsed: ParsedPrompt,
    response: str,
    reasoning: str,
) -> dict[str, Any]:
    """One GPQA report item (the original's fields, camelCase).

    Args:
        record: the evaluation.
        status: correct, wrong, no_answer or skipped.
        parsed: the question and choices of its prompt.
        response: the model's final message; reasoning: its exposed reasoning.
    """
    target = record.target or None
    question, choices, answer_text = parsed_values(parsed, target)
    return {
        "sampleId": record.sample_id,
        "epoch": record.epoch,
        "status": status,
        "latencyMs": record.latency_ms,
        "prompt": record.input,
        "question": question,
        "choices": choices,
        "modelAnswer": response,
        "extractedAnswer": record.answer,
        "correctAnswer": target,
        "correctAnswerText": answer_text,
        "reasoning": reasoning or None,
        "scorerExplanation": record.explanation,
        "subdomain": subdomain(record),
    }


def parsed_values(
    parsed: ParsedPrompt, target: str | None
) -> tuple[str, dict[str, str], str | None]:
    """The values of `PARSED_KEYS` for a question's parse and an evaluation's target."""
    return parsed.question, parsed.choices, parsed.choices.get(target) if target else None
