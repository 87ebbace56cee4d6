"""`bench run` arguments: parsed and validated into a `RunConfig` before anything runs.

Temperature, max tokens, reasoning effort, retries and timeouts are first-class flags that
override the same keys of `--solver-config` (which keeps the original's JSON keys). Every
unknown flag or key is an error that lists the valid ones.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from pydantic import JsonValue, ValidationError

from bench_common.run_config import InferenceOptions, RunConfig
from bench_runner.benchmarks.base import Benchmark
from bench_runner.benchmarks.registry import benchmark_ids, get_benchmark

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"

# flag -> solver-config key it overrides
_OVERRIDES: dict[str, str] = {
    "temperature": "temperature",
    "max_tokens": "maxTokens",
    "reasoning_effort": "reasoningEffort",
    "max_retries": "maxRetries",
    "timeout_ms": "timeoutMs",
    "completion_timeout_ms": "completionTimeoutMs",
    "endpoint_id": "endpointId",
    "cost_tier": "costTier",
    "answer_extractor": "answerExtractor",
}


class UsageError(Exception):
    """Bad command-line input; the message says what is wrong and what is valid."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        flags = sorted(o for a in self._actions for o in a.option_strings if o.startswith("--"))
        raise UsageError(f"{message}\nvalid flags: {' '.join(flags)}")


@dataclass(frozen=True)
class RunInvocation:
    """A validated `bench run`: the config plus where inputs and outputs go."""

    config: RunConfig
    benchmark: Benchmark
    dataset_file: Path | None


def build_parser(prog: str = "bench run") -> argparse.ArgumentParser:
    """The argument parser of `bench run` (also used by `bench submit`)."""
    p = _Parser(prog=prog, description="Run a benchmark against an OpenAI-compatible endpoint.")
    p.add_argument("--benchmark", default="gpqa_diamond", help="benchmark id")
    p.add_argument("--model", required=True, help="model id at the endpoint")
    p.add_argument(
        "--base-url",
        help=f"endpoint base URL (env OPENROUTER_BASE_URL, default {DEFAULT_BASE_URL})",
    )
    p.add_argument("--limit", type=int, help="number of rows from --start (end = start + limit)")
    p.add_argument("--start", type=int, default=0, help="first row (0-based, inclusive)")
    p.add_argument("--end", type=int, help="end row (exclusive); wins over --limit")
    p.add_argument("--epochs", type=int, help="repetitions of each sample")
    p.add_argument("--concurrency", type=int, help="evaluations in flight at once")
    p.add_argument("--unordered", action="store_true", help="emit results as they complete")
    p.add_argument("--sample-id", action="append", default=[], help="only this sample (repeatable)")
    p.add_argument("--solver-config", help="JSON object of solver-config keys")
    p.add_argument("--temperature", type=float)
    p.add_argument("--max-tokens", type=int)
    p.add_argument(
        "--reasoning-effort", choices=["xhigh", "high", "medium", "low", "minimal", "none"]
    )
    p.add_argument("--max-retries", type=int, help="retries per call (default 6; 0 disables)")
    p.add_argument("--timeout-ms", type=int, help="bound on the wait for response headers")
    p.add_argument("--completion-timeout-ms", type=int, help="bound on a whole attempt")
    p.add_argument("--endpoint-id", help="OpenRouter endpoint pin")
    p.add_argument("--cost-tier", choices=["low", "medium", "high", "xhigh", "max"])
    p.add_argument(
        "--answer-extractor", choices=["careful", "parity"], help="GPQA: which extractor scores"
    )
    p.add_argument(
        "--dataset-file", type=Path, help="read the dataset from a local CSV/JSONL/Parquet file"
    )
    return p


def _solver_config(raw: str | None) -> dict[str, JsonValue]:
    if raw is None:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--solver-config is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError("--solver-config must be a JSON object, e.g. '{\"maxTokens\": 4096}'")
    return value


def _pydantic_problem(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())


def parse_run_args(argv: Sequence[str], env: Mapping[str, str]) -> RunInvocation:
    """Parse and validate `bench run` arguments.

    Raises:
        UsageError: unknown flag or key, bad value, unknown benchmark, bad range.
    """
    args = build_parser().parse_args(list(argv))
    try:
        benchmark = get_benchmark(args.benchmark)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    merged = {**benchmark.options_from_env(env), **_solver_config(args.solver_config)}
    for flag, key in _OVERRIDES.items():
        value: Any = getattr(args, flag)
        if value is not None:
            merged[key] = value
    inference_keys = set(InferenceOptions.keys())
    bench_keys = set(benchmark.options_type.keys())
    unknown = sorted(set(merged) - inference_keys - bench_keys)
    if unknown:
        valid = ", ".join(sorted(inference_keys | bench_keys))
        raise UsageError(
            f"unknown solver-config key(s) for {benchmark.info.id}: {', '.join(unknown)}. "
            f"Valid keys: {valid}"
        )
    info = benchmark.info
    concurrency = args.concurrency if args.concurrency is not None else info.default_concurrency
    if info.max_concurrency is not None and concurrency > info.max_concurrency:
        raise UsageError(f"{info.id} allows at most --concurrency {info.max_concurrency}")
    try:
        inference = InferenceOptions.model_validate(
            {k: v for k, v in merged.items() if k in inference_keys}
        )
        benchmark_options = {k: v for k, v in merged.items() if k in bench_keys}
        benchmark.parse_options(benchmark_options)
        config = RunConfig(
            benchmark=info.id,
            model=args.model,
            base_url=(args.base_url or env.get("OPENROUTER_BASE_URL") or DEFAULT_BASE_URL).rstrip(
                "/"
            ),
            epochs=args.epochs if args.epochs is not None else info.default_epochs,
            concurrency=concurrency,
            unordered=args.unordered,
            limit=args.limit,
            start=args.start,
            end=args.end,
            sample_ids=tuple(args.sample_id),
            inference=inference,
            benchmark_options=benchmark_options,
        )
    except ValidationError as exc:
        raise UsageError(f"invalid run settings: {_pydantic_problem(exc)}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return RunInvocation(config=config, benchmark=benchmark, dataset_file=args.dataset_file)


__all__ = ["RunInvocation", "UsageError", "benchmark_ids", "build_parser", "parse_run_args"]
