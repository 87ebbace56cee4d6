"""The scheduler's state: every run's lifecycle folded from BENCH_EVENTS.

The fold is the only way state changes, both when the scheduler replays the stream on start
and when it applies a fact it has just decided, so a restarted scheduler ends up exactly where
the crashed one was. Applying the same event twice changes nothing (the live feed echoes the
scheduler's own events back).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bench_common.envelope import Event
from bench_common.evaluation import ScoreValue
from bench_common.events import (
    RunAbortRequested,
    RunAdmitted,
    RunCancelRequested,
    RunFinished,
    RunRejected,
    RunRequested,
    RunStarted,
    SampleCompleted,
    SampleDispatched,
)
from bench_common.run_config import RunConfig

ItemKey = tuple[str, int]
"""One evaluation: (sample id, epoch)."""

FOLDED_EVENTS: tuple[type[Event], ...] = (
    RunRequested,
    RunAdmitted,
    RunRejected,
    RunStarted,
    RunCancelRequested,
    RunAbortRequested,
    RunFinished,
    SampleDispatched,
    SampleCompleted,
)
FOLDED_NAMES = frozenset(e.name for e in FOLDED_EVENTS)
"""Names of the events the scheduler folds; every other event (attempts, artifacts) is skipped
before decoding."""


@dataclass
class RunState:
    """What the scheduler knows about one run.

    `outstanding` holds the dispatched evaluations not yet scored (the exact events, so a
    restarted scheduler can re-publish them unchanged); `scores` the first score of each
    evaluation. They and the plan are dropped when the run finishes: only `finished` matters
    then.
    """

    run_id: str
    config: RunConfig | None = None
    key_id: str | None = None
    requested: bool = False
    admitted: bool = False
    rejected: bool = False
    sample_ids: tuple[str, ...] | None = None
    planned: frozenset[str] = frozenset()
    outstanding: dict[ItemKey, SampleDispatched] = field(default_factory=dict)
    scores: dict[ItemKey, ScoreValue] = field(default_factory=dict)
    cursor: int = 0
    cancel_requested: bool = False
    abort_reason: str | None = None
    finished: RunFinished | None = None

    @property
    def active(self) -> bool:
        """Admitted and not finished: counts toward the active-run cap."""
        return self.admitted and self.finished is None

    @property
    def epochs(self) -> int:
        """Epochs of the run (1 until the config is known)."""
        return self.config.epochs if self.config is not None else 1

    @property
    def total(self) -> int:
        """Expected evaluations (samples x epochs), 0 until the run has started."""
        return len(self.sample_ids or ()) * self.epochs

    def item_at(self, position: int) -> ItemKey:
        """The evaluation at `position` in sample/epoch order (s0/e0, s0/e1, ..., s1/e0)."""
        assert self.sample_ids is not None
        return self.sample_ids[position // self.epochs], position % self.epochs

    def in_plan(self, key: ItemKey) -> bool:
        """The evaluation belongs to the run's plan (facts about anything else are ignored)."""
        return key[0] in self.planned and 0 <= key[1] < self.epochs

    def taken(self, key: ItemKey) -> bool:
        """The evaluation was dispatched or scored already."""
        return key in self.outstanding or key in self.scores

    def _advance_cursor(self) -> None:
        while self.cursor < self.total and self.taken(self.item_at(self.cursor)):
            self.cursor += 1


class SchedulerState:
    """All runs the scheduler has seen, keyed by run id."""

    def __init__(self) -> None:
        self.runs: dict[str, RunState] = {}

    def run(self, run_id: str) -> RunState:
        """The state of `run_id`, created empty on first sight."""
        found = self.runs.get(run_id)
        if found is None:
            found = self.runs[run_id] = RunState(run_id)
        return found

    def is_finished(self, run_id: str) -> bool:
        """True once `RunFinished` was folded: later events of the run change nothing."""
        found = self.runs.get(run_id)
        return found is not None and found.finished is not None

    def active_runs(self) -> list[RunState]:
        """Runs admitted and not finished, of every kind (comparison arms count too)."""
        return [r for r in self.runs.values() if r.active]

    def apply(self, event: Event) -> RunState | None:
        """Fold one event; return the run it touched, or None when it changed nothing."""
        if not isinstance(event, FOLDED_EVENTS) or self.is_finished(event.run_id):
            return None
        run = self.run(event.run_id)
        _fold(run, event)
        return run


def _fold(run: RunState, event: Event) -> None:
    if isinstance(event, RunRequested):
        run.requested = True
        run.config = run.config or event.config
        key_ids = {sealed.key_id for sealed in event.credentials.values()}
        run.key_id = run.key_id or (min(key_ids) if key_ids else None)
    elif isinstance(event, RunAdmitted):
        run.admitted = True
    elif isinstance(event, RunRejected):
        run.rejected = run.rejected or not run.admitted
    elif isinstance(event, RunStarted):
        if run.sample_ids is None:  # the first plan wins; a second planner's copy is ignored
            run.sample_ids = tuple(dict.fromkeys(event.sample_ids))  # each sample once
            run.planned = frozenset(run.sample_ids)
            run._advance_cursor()
    elif isinstance(event, RunCancelRequested):
        run.cancel_requested = True
    elif isinstance(event, RunAbortRequested):
        run.abort_reason = run.abort_reason or event.reason
    elif isinstance(event, SampleDispatched):
        key = (event.sample_id, event.epoch)
        if run.in_plan(key) and key not in run.scores:
            run.outstanding.setdefault(key, event)
            run._advance_cursor()
    elif isinstance(event, SampleCompleted):
        key = (event.record.sample_id, event.record.epoch)
        if not run.in_plan(key):
            return
        run.scores.setdefault(key, event.record.score)  # first result wins
        run.outstanding.pop(key, None)
        run._advance_cursor()
    elif isinstance(event, RunFinished):
        run.finished = event  # keep only what a finished run needs: memory stays bounded
        run.outstanding.clear()
        run.scores.clear()
        run.sample_ids, run.planned = None, frozenset()
