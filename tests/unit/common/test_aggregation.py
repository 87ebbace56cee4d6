"""Run metrics: the original's accuracy rule, skips, intervals, extractors."""

from __future__ import annotations

import pytest

from bench_common.aggregation import aggregate, wilson_interval
from bench_common.evaluation import EvaluationRecord, ScoreValue
from bench_common.outcome import decide_outcome
from bench_common.usage import Usage


def rec(sample: int, epoch: int, score: ScoreValue, **kw: object) -> EvaluationRecord:
    return EvaluationRecord.model_validate(
        {"sample_id": f"s-{sample}", "sample_index": sample, "epoch": epoch, "score": score, **kw}
    )


def test_accuracy_is_mean_of_question_means_over_non_skipped_epochs() -> None:
    records = [
        rec(0, 0, "C"),
        rec(0, 1, "I"),
        rec(0, 2, "S"),  # 0.5 -> counts as correct
        rec(1, 0, "I"),
        rec(1, 1, "I"),
        rec(1, 2, "C"),  # 1/3
        rec(2, 0, "S"),
        rec(2, 1, "S"),
        rec(2, 2, "S"),  # skipped question
    ]
    m = aggregate(records)
    assert m.accuracy == pytest.approx((0.5 + 1 / 3) / 2)
    assert m.total_questions == 2
    assert m.correct_answers == 1
    assert m.skipped_questions == 1
    assert (m.completed_evaluations, m.skipped_evaluations, m.correct_evaluations) == (5, 4, 2)
    assert [e.scored for e in m.epoch_results] == [2, 2, 1]


def test_duplicates_count_once() -> None:
    m = aggregate([rec(0, 0, "C"), rec(0, 0, "I"), rec(0, 1, "I")])
    assert m.evaluations == 2
    assert m.accuracy == 0.5


def test_usage_and_auxiliary_usage_are_summed_apart() -> None:
    aux = {"simulator": Usage(input_tokens=7, cost=0.5).model_dump()}
    m = aggregate(
        [
            rec(
                0, 0, "C", usage=Usage(input_tokens=10, cost=1.0), metadata={"auxiliary_usage": aux}
            ),
            rec(1, 0, "I", usage=Usage(input_tokens=5), metadata={"auxiliary_usage": aux}),
        ]
    )
    assert m.usage.input_tokens == 15
    assert m.usage.cost == 1.0
    assert m.auxiliary_usage["simulator"].input_tokens == 14


def test_extractor_accuracy_and_disagreements() -> None:
    m = aggregate(
        [
            rec(0, 0, "C", target="A", metadata={"extracted": {"careful": "A", "parity": "A"}}),
            rec(1, 0, "I", target="B", metadata={"extracted": {"careful": None, "parity": "T"}}),
            rec(2, 0, "C", target="C", metadata={"extracted": {"careful": "C", "parity": "D"}}),
        ]
    )
    assert m.extractor_accuracy == {"careful": pytest.approx(2 / 3), "parity": pytest.approx(1 / 3)}
    assert m.extractor_disagreements == 2
    assert m.target_distribution == {"A": 1, "B": 1, "C": 1}


def test_wilson_interval_matches_known_values() -> None:
    interval = wilson_interval(0.5, 100)
    assert interval is not None
    assert interval.lower == pytest.approx(0.4038, abs=1e-4)
    assert interval.upper == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0.0, 0) is None
    edge = wilson_interval(1.0, 10)
    assert edge is not None and edge.upper == pytest.approx(1.0) and edge.lower > 0.6


def test_outcome_rules() -> None:
    assert decide_outcome(expected=4, completed=2, skipped=2).status == "succeeded"
    failed = decide_outcome(expected=4, completed=1, skipped=3)
    assert failed.status == "failed" and "skipped" in (failed.failure_reason or "")
    assert decide_outcome(expected=4, completed=3, skipped=0).status == "failed"
    assert decide_outcome(expected=4, completed=4, skipped=0, cancelled=True).status == "cancelled"
    aborted = decide_outcome(expected=4, completed=0, skipped=0, abort_reason="bad key")
    assert aborted == type(aborted)("failed", "bad key")
