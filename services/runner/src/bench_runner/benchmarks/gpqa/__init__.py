"""GPQA Diamond: the original harness's shuffle, prompt and answer extraction, plus a careful
extractor that scores by default."""

from bench_runner.benchmarks.gpqa.benchmark import GpqaDiamond, GpqaOptions, extract_answers
from bench_runner.benchmarks.gpqa.extract_careful import extract_careful
from bench_runner.benchmarks.gpqa.extract_parity import extract_parity

__all__ = ["GpqaDiamond", "GpqaOptions", "extract_answers", "extract_careful", "extract_parity"]
