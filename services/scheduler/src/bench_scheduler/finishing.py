"""Final status: when a run is over and how it ended.

A run ends at once when someone cancels it (`cancelled`) or a runner reports it cannot go on
(`failed` with the runner's reason); otherwise it ends when every expected evaluation has a
score, with the status `bench_common.outcome.decide_outcome` gives, the same rule as the CLI.
"""

from __future__ import annotations

from bench_common.aggregation import question_accuracy
from bench_common.envelope import deterministic_event_id
from bench_common.events import RunCounts, RunFinished
from bench_common.outcome import Outcome, decide_outcome
from bench_scheduler.state import RunState


def run_counts(run: RunState) -> RunCounts:
    """Progress counts from the first score of each evaluation."""
    scores = list(run.scores.values())
    return RunCounts(
        total=run.total,
        completed=sum(1 for s in scores if s != "S"),
        skipped=scores.count("S"),
        correct=scores.count("C"),
    )


def run_accuracy(run: RunState) -> float | None:
    """Accuracy by the aggregation rule (mean over questions of the mean over non-skipped
    epochs), or None when nothing was scored C or I."""
    by_question: dict[str, list[bool]] = {}
    for (sample_id, _), score in run.scores.items():
        outcomes = by_question.setdefault(sample_id, [])
        if score != "S":
            outcomes.append(score == "C")
    accuracy, scored, _ = question_accuracy(by_question)
    return accuracy if scored else None


def _outcome(run: RunState) -> Outcome | None:
    if run.cancel_requested:
        return decide_outcome(expected=run.total, completed=0, skipped=0, cancelled=True)
    if run.abort_reason is not None:
        return decide_outcome(
            expected=run.total, completed=0, skipped=0, abort_reason=run.abort_reason
        )
    if run.sample_ids is None:
        return None
    if not run.sample_ids:
        return Outcome(
            "failed",
            f"the runner planned run {run.run_id} without sample ids, so nothing can be "
            "dispatched; check the run's range and --sample-id filters",
        )
    if len(run.scores) < run.total:
        return None
    counts = run_counts(run)
    return decide_outcome(expected=run.total, completed=counts.completed, skipped=counts.skipped)


def decide_finish(run: RunState) -> RunFinished | None:
    """The `RunFinished` the run is due, or None while it goes on.

    Pure. The event id is derived from the run, so a scheduler that restarts after deciding
    but before recording it publishes the same fact again and JetStream drops the copy.
    Called on every event of a run, so it costs O(1) until the run is over: counting the
    scores on each call made a run of n evaluations cost O(n²) (a third of the scheduler's
    CPU on a 4,096-evaluation run).
    """
    if not run.active:
        return None
    outcome = _outcome(run)
    if outcome is None:
        return None
    counts = run_counts(run)
    return RunFinished(
        event_id=deterministic_event_id(run.run_id, "finished"),
        run_id=run.run_id,
        status=outcome.status,
        failure_reason=outcome.failure_reason,
        counts=counts,
        accuracy=run_accuracy(run),
    )
