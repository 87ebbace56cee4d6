"""Run counts kept incrementally: which evaluations of a batch are new, and what they add.

Recounting a run from its `evaluations` rows on every batch costs time in proportion to the
run (10,000 evaluations read again for every 100 new ones); adding what the new rows change
costs time in proportion to the batch. The store reads the stored rows of the samples a batch
touches (inside the locked transaction), and this pure function says which rows are new (the
first result per sample and epoch wins) and how the run's counts move.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from bench_api.projection.changes import EvaluationRow


@dataclass(frozen=True)
class CountDelta:
    """What new evaluations add to a run's counts.

    `done` counts C and I, `skipped` counts S. A question is completed once any epoch of it
    is C or I, and skipped while every epoch seen so far is S.
    """

    done: int = 0
    skipped: int = 0
    correct: int = 0
    completed_questions: int = 0
    skipped_questions: int = 0

    @property
    def processed(self) -> int:
        """Evaluations newly scored (C, I or S)."""
        return self.done + self.skipped


def new_evaluations(
    stored: Iterable[tuple[str, int, str]], candidates: Iterable[EvaluationRow]
) -> tuple[list[EvaluationRow], CountDelta]:
    """The candidates not stored yet and the counts they add.

    Args:
        stored: (sample id, epoch, score) of every stored evaluation of the samples the
            candidates belong to (one run).
        candidates: the batch's rows of that run, at most one per (sample, epoch).
    """
    scores: dict[str, dict[int, str]] = defaultdict(dict)
    for sample_id, epoch, score in stored:
        scores[sample_id][epoch] = score
    before = {sample: _state(by_epoch.values()) for sample, by_epoch in scores.items()}
    fresh = []
    for row in candidates:
        sample, epoch = str(row.values["sample_id"]), row.epoch
        if epoch not in scores[sample]:
            scores[sample][epoch] = str(row.values["score"])
            fresh.append(row)
    touched = {str(row.values["sample_id"]) for row in fresh}
    completed_q = skipped_q = 0
    for sample in touched:
        was_done, was_seen = before.get(sample, (False, False))
        is_done, _ = _state(scores[sample].values())
        completed_q += int(is_done) - int(was_done)
        skipped_q += int(not is_done) - int(was_seen and not was_done)
    new_scores = [str(row.values["score"]) for row in fresh]
    delta = CountDelta(
        done=sum(s != "S" for s in new_scores),
        skipped=new_scores.count("S"),
        correct=new_scores.count("C"),
        completed_questions=completed_q,
        skipped_questions=skipped_q,
    )
    return fresh, delta


def _state(scores: Iterable[str]) -> tuple[bool, bool]:
    """(completed: any C or I, seen: any score at all) of one question."""
    values = list(scores)
    return any(s != "S" for s in values), bool(values)
