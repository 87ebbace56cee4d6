"""The TAU airline report (`GET /runs/{id}/tau-airline-report`, `reports/tau-airline-report.json`).

One item per evaluation with what the task expected and what the agent did (§7 fields), plus
pass^k over epochs: the probability that k independent attempts at a task all succeed,
estimated per task as C(c, k) / C(n, k) from c successes in n scored epochs (τ²'s metric) and
averaged over tasks. Everything comes from the evaluation records: the runner stores each
task's expectations in `metadata.expected`.
"""

from __future__ import annotations

from collections import defaultdict
from math import comb
from typing import Any

from pydantic import JsonValue

from bench_common.evaluation import EvaluationRecord

TAU_REPORT_VERSION = 1


def _tool_calls(messages: list[dict[str, JsonValue]]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for message in messages:
        raw = message.get("tool_calls")
        if message.get("role") != "assistant" or not isinstance(raw, list):
            continue
        for call in raw:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                calls.append({"name": function.get("name"), "arguments": function.get("arguments")})
    return calls


def _final_agent_answer(messages: list[dict[str, JsonValue]]) -> str | None:
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str) and content.strip():
            return content
    return None


def _status(record: EvaluationRecord) -> str:
    return {"C": "passed", "I": "failed", "S": "skipped"}[record.score]


def report_item(record: EvaluationRecord) -> dict[str, Any]:
    """The §7 fields of one evaluation."""
    meta = record.metadata
    expected = meta.get("expected") if isinstance(meta.get("expected"), dict) else {}
    assert isinstance(expected, dict)
    return {
        "sampleId": record.sample_id,
        "epoch": record.epoch,
        "taskId": meta.get("task_id", record.target),
        "status": _status(record),
        "scenario": record.input,
        "persona": expected.get("persona"),
        "purpose": expected.get("purpose"),
        "expectedActions": expected.get("actions", []),
        "expectedCommunications": expected.get("communicate_info", []),
        "expectedAssertions": expected.get("nl_assertions", []),
        "rewardBasis": meta.get("reward_basis"),
        "actualToolCalls": _tool_calls(record.messages),
        "conversation": record.messages,
        "finalAgentAnswer": _final_agent_answer(record.messages),
        "terminationReason": meta.get("termination_reason"),
        "stepCount": meta.get("step_count"),
        "reward": meta.get("reward"),
        "rewardBreakdown": meta.get("reward_breakdown"),
        "hasReasoning": any(
            m.get("role") == "assistant" and bool(m.get("reasoning")) for m in record.messages
        ),
        "explanation": record.explanation,
        "latencyMs": record.latency_ms,
    }


def pass_hat_k(records: list[EvaluationRecord]) -> dict[str, float]:
    """pass^k for k = 1 .. the smallest number of scored epochs of any task."""
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for record in records:
        if record.score != "S":
            outcomes[record.sample_id].append(record.score == "C")
    if not outcomes:
        return {}
    max_k = min(len(v) for v in outcomes.values())
    result: dict[str, float] = {}
    for k in range(1, max_k + 1):
        per_task = [comb(sum(v), k) / comb(len(v), k) for v in outcomes.values()]
        result[str(k)] = sum(per_task) / len(per_task)
    return result


def tau_airline_report(records: list[EvaluationRecord]) -> dict[str, Any]:
    """Items sorted by task and epoch, pass^k, and counts by termination reason."""
    ordered = sorted(records, key=lambda r: (r.sample_index, r.epoch))
    terminations: dict[str, int] = defaultdict(int)
    for record in ordered:
        terminations[str(record.metadata.get("termination_reason", "unknown"))] += 1
    return {
        "reportVersion": TAU_REPORT_VERSION,
        "evaluations": len(ordered),
        "passHatK": pass_hat_k(ordered),
        "terminationReasons": dict(sorted(terminations.items())),
        "items": [report_item(r) for r in ordered],
    }
