"""The GPQA Diamond plugin: one chat call per (sample, epoch), scored by the chosen extractor.

Both extractors run on every response and both letters are kept in the record's metadata, so
any run can be re-scored either way (`careful` by default, `parity` for the original's rules).
"""

from __future__ import annotations

from typing import Literal

from pydantic import JsonValue

from bench_common.evaluation import EvaluationRecord
from bench_runner.benchmarks.base import (
    Benchmark,
    BenchmarkInfo,
    BenchmarkOptions,
    DatasetContext,
    EvalContext,
    Sample,
)
from bench_runner.benchmarks.gpqa.dataset import BENCHMARK_ID, load_gpqa_samples
from bench_runner.benchmarks.gpqa.extract_careful import extract_careful
from bench_runner.benchmarks.gpqa.extract_parity import extract_parity
from bench_runner.benchmarks.gpqa.prompt import build_messages
from bench_runner.datasets import HfRowsClient
from bench_runner.inference.types import CallContext, ChatRequest

AnswerExtractor = Literal["careful", "parity"]


class GpqaOptions(BenchmarkOptions):
    """GPQA's own solver-config keys.

    Attributes:
        answer_extractor: `answerExtractor` in JSON; which extractor decides the score.
    """

    answer_extractor: AnswerExtractor = "careful"


def extract_answers(content: str) -> dict[AnswerExtractor, str | None]:
    """Both extractors' letters for one response (assistant content only, never reasoning)."""
    return {"careful": extract_careful(content), "parity": extract_parity(content)}


def explain(answer: str | None, target: str) -> str:
    """The original's explanation text for a scored response."""
    if answer is None:
        return "No answer found"
    return f"Extracted '{answer}' from response, target was '{target}'"


class GpqaDiamond(Benchmark):
    """GPQA Diamond: 198 four-option science questions, options shuffled by row index."""

    info = BenchmarkInfo(
        id=BENCHMARK_ID,
        title="GPQA Diamond",
        default_epochs=3,
        default_concurrency=3,
        temperature=1.0,
        dataset_size=198,
    )
    options_type = GpqaOptions

    def __init__(self, *, rows_client: HfRowsClient | None = None) -> None:
        """Args: rows_client: the datasets-server client (tests point it at a local server)."""
        self._rows_client = rows_client or HfRowsClient()

    async def load_samples(
        self, dataset: DatasetContext, options: BenchmarkOptions
    ) -> list[Sample]:
        """Every sample in dataset order (see `load_gpqa_samples`)."""
        return await load_gpqa_samples(dataset, client=self._rows_client)

    async def evaluate(self, sample: Sample, epoch: int, ctx: EvalContext) -> EvaluationRecord:
        """Ask the model once and score its answer. `ModelError` propagates to the engine."""
        options = self._options(ctx.options)
        configured = ctx.config.inference.temperature
        temperature = configured if configured is not None else self.info.temperature
        messages = build_messages(sample.input)
        result = await ctx.model.complete(
            ChatRequest(messages=list(messages), temperature=temperature),
            call=CallContext(sample_id=sample.id, epoch=epoch),
        )
        extracted = extract_answers(result.content)
        answer = extracted[options.answer_extractor]
        target = sample.target or ""
        extracted_json: dict[str, JsonValue] = {str(k): v for k, v in extracted.items()}
        metadata: dict[str, JsonValue] = {
            "subdomain": sample.metadata.get("subdomain"),
            "extracted": extracted_json,
            "answer_extractor": options.answer_extractor,
        }
        return EvaluationRecord(
            sample_id=sample.id,
            sample_index=sample.index,
            epoch=epoch,
            score="C" if answer is not None and answer == target else "I",
            answer=answer,
            explanation=explain(answer, target),
            input=sample.input,
            target=sample.target,
            messages=[*messages, result.assistant_message()],
            metadata=metadata,
            usage=result.usage,
            latency_ms=result.latency_ms,
            generation_ids=[result.generation_id] if result.generation_id else [],
        )

    def _options(self, options: BenchmarkOptions) -> GpqaOptions:
        # The engine passes what parse_options returned; a bare base instance means defaults.
        if isinstance(options, GpqaOptions):
            return options
        return GpqaOptions.model_validate(options.model_dump(by_alias=True))
