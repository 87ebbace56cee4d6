"""Token usage and cost, summed per attempt, per evaluation and per run."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Usage(BaseModel):
    """Tokens and cost of one or more model calls.

    `generation_time_ms` is wall time spent in model calls (summed over calls).
    """

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    reasoning_tokens: int = 0
    cache_read_tokens: int = 0
    cost: float = 0.0
    generation_time_ms: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cost=self.cost + other.cost,
            generation_time_ms=self.generation_time_ms + other.generation_time_ms,
        )

    def to_summary(self) -> dict[str, float | int]:
        """The camelCase `usage` object of the JSON summary (original field names)."""
        return {
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "totalTokens": self.total_tokens,
            "reasoningTokens": self.reasoning_tokens,
            "cacheReadTokens": self.cache_read_tokens,
            "totalCost": round(self.cost, 10),
            "generationTimeMs": self.generation_time_ms,
        }
