"""Incremental run counts: new rows only, question transitions, first result wins."""

from __future__ import annotations

from bench_api.projection.changes import EvaluationRow
from bench_api.projection.counts import CountDelta, new_evaluations


def row(sample: str, epoch: int, score: str) -> EvaluationRow:
    return EvaluationRow(
        values={"run_id": "r", "sample_id": sample, "epoch": epoch, "score": score}
    )


def test_new_rows_on_an_empty_run() -> None:
    fresh, delta = new_evaluations([], [row("a", 0, "C"), row("a", 1, "S"), row("b", 0, "S")])

    assert len(fresh) == 3
    assert delta == CountDelta(
        done=1, skipped=2, correct=1, completed_questions=1, skipped_questions=1
    )
    assert delta.processed == 3


def test_stored_rows_are_not_counted_again() -> None:
    stored = [("a", 0, "C"), ("b", 0, "I")]
    fresh, delta = new_evaluations(stored, [row("a", 0, "I"), row("b", 0, "C")])

    assert fresh == []
    assert delta == CountDelta()


def test_a_skipped_question_becomes_completed_when_an_epoch_scores() -> None:
    fresh, delta = new_evaluations([("a", 0, "S")], [row("a", 1, "C")])

    assert [r.epoch for r in fresh] == [1]
    assert delta == CountDelta(done=1, correct=1, completed_questions=1, skipped_questions=-1)


def test_another_epoch_of_a_completed_question_changes_no_question_count() -> None:
    _, delta = new_evaluations([("a", 0, "I")], [row("a", 1, "S")])

    assert delta == CountDelta(skipped=1)
