"""The result of one evaluation (one sample in one epoch): everything a Parquet row needs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bench_common.usage import Usage

ScoreValue = Literal["C", "I", "S"]
"""C correct, I incorrect, S skipped (the evaluation could not be completed; excluded from
accuracy)."""


class EvaluationRecord(BaseModel):
    """One scored (sample, epoch).

    `sample_index` is the absolute dataset row; rows are ordered by it and by `epoch`.
    `latency_ms` is the model time of this evaluation (`sample_generation_time_ms`).
    `messages` is the chat trajectory; benchmark specifics go to `metadata`.
    """

    model_config = ConfigDict(frozen=True)

    sample_id: str
    sample_index: int
    epoch: int = Field(ge=0)
    score: ScoreValue
    answer: str | None = None
    explanation: str | None = None
    input: str | None = None
    target: str | None = None
    messages: list[dict[str, JsonValue]] = Field(default_factory=list)
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    usage: Usage = Usage()
    latency_ms: int | None = None
    scorer_trajectory: JsonValue = None
    response_items: JsonValue = None
    request_body: JsonValue = None
    generation_ids: list[str] = Field(default_factory=list)

    @property
    def key(self) -> tuple[int, int]:
        """Sort and de-duplication key: (sample index, epoch)."""
        return (self.sample_index, self.epoch)
