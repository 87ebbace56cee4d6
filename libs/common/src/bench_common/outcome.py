"""The final status of a run, decided the same way by the CLI and the scheduler."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FinalStatus = Literal["succeeded", "failed", "cancelled"]


@dataclass(frozen=True)
class Outcome:
    """A final status and, when not succeeded, a reason a person can act on."""

    status: FinalStatus
    failure_reason: str | None = None


def decide_outcome(
    *,
    expected: int,
    completed: int,
    skipped: int,
    cancelled: bool = False,
    abort_reason: str | None = None,
) -> Outcome:
    """Succeeded iff every expected evaluation was scored (C, I or S) and skipped <= completed.

    Args:
        expected: evaluations the run should produce (samples x epochs).
        completed: evaluations scored C or I.
        skipped: evaluations scored S.
        cancelled: someone cancelled the run.
        abort_reason: the run was stopped early (bad key, unknown model, a crash).
    """
    if cancelled:
        return Outcome("cancelled", "the run was cancelled before it finished")
    if abort_reason:
        return Outcome("failed", abort_reason)
    processed = completed + skipped
    if processed < expected:
        return Outcome(
            "failed",
            f"only {processed} of {expected} evaluations were scored; "
            "the run stopped before finishing",
        )
    if skipped > completed:
        return Outcome(
            "failed",
            f"{skipped} of {processed} evaluations were skipped (more than the {completed} "
            "completed): the endpoint kept failing (timeouts, rate limits or server errors). "
            "See the request log for statuses; lower --concurrency or raise --timeout-ms.",
        )
    return Outcome("succeeded")
