"""The performance report: latency, in-flight, throughput, tokens/s, reliability."""

from __future__ import annotations

from bench_common.attempts import AttemptCompleted, AttemptStarted
from bench_common.reports import performance_report
from tests.unit.reports.support import attempt_pair


def _records() -> list[AttemptStarted | AttemptCompleted]:
    # Four attempts over a 60 s window: [0,10s) [5s,25s) [20s,30s) ok; one 503 then a retry.
    records: list[AttemptStarted | AttemptCompleted] = []
    for pair in (
        attempt_pair("a", start_ms=0, duration_ms=10_000, output_tokens=600),
        attempt_pair("b", start_ms=5_000, duration_ms=20_000, output_tokens=600),
        attempt_pair("c", start_ms=20_000, duration_ms=10_000, output_tokens=600),
        attempt_pair("d1", call_id="d", start_ms=30_000, duration_ms=5_000, status=503, ok=False),
        attempt_pair("d2", call_id="d", attempt=2, start_ms=40_000, duration_ms=20_000,
                     output_tokens=1_200),
    ):  # fmt: skip
        records.extend(pair)
    return records


def test_latency_percentiles_of_completed_attempts() -> None:
    report = performance_report(_records())
    assert report["latency"] == {
        "count": 5,
        "p50Ms": 10_000,
        "p75Ms": 20_000,
        "p90Ms": 20_000,
        "p95Ms": 20_000,
        "meanMs": 13_000.0,
        "maxMs": 20_000,
    }


def test_in_flight_peak_and_time_weighted_average() -> None:
    report = performance_report(_records())
    # a, b overlap in [5s,10s); b, c overlap in [20s,25s): peak 2, never 3.
    assert report["concurrency"]["peakInFlight"] == 2
    # 65 attempt-seconds over a 60 s window.
    assert report["concurrency"]["averageInFlight"] == round(65 / 60, 3)


def test_throughput_and_output_tokens_per_second() -> None:
    report = performance_report(_records())
    assert report["throughput"]["windowMs"] == 60_000
    assert report["throughput"]["requestsPerMinute"] == 5.0
    assert report["throughput"]["effectiveOutputTokensPerSecond"] == 50.0  # 3000 / 60 s
    assert report["usage"]["outputTokens"] == 3_000


def test_reliability_rates_and_error_statuses() -> None:
    records = _records()
    records += attempt_pair("e", start_ms=1_000, duration_ms=1_000, status=None, ok=False)
    records += attempt_pair(
        "f", start_ms=2_000, duration_ms=1_000, status=200, ok=False,
        failure_stage="response_processing",
    )  # fmt: skip
    report = performance_report(records)
    reliability = report["reliability"]
    assert report["requests"]["completed"] == 7
    assert reliability["successRate"] == 4 / 7
    assert reliability["errorRate"] == 3 / 7
    assert reliability["postProcessingFailureRate"] == 1 / 7
    assert reliability["retryAttemptRate"] == 1 / 7
    assert reliability["errorStatusCounts"] == {"200": 1, "503": 1, "no status": 1}
    assert report["requests"]["retriedCalls"] == 1


def test_pending_attempts_count_in_flight_until_the_window_ends() -> None:
    started, _ = attempt_pair("p", start_ms=0, duration_ms=0)
    done = attempt_pair("q", start_ms=0, duration_ms=10_000)
    report = performance_report([started, *done])
    assert report["requests"]["pending"] == 1
    assert report["reliability"]["pending"] == 1
    assert report["concurrency"]["peakInFlight"] == 2
    assert report["concurrency"]["averageInFlight"] == 2.0


def test_duplicates_count_once_and_empty_input_gives_unknowns() -> None:
    records = _records()
    report = performance_report(records + records)
    assert report["requests"]["attempts"] == 5
    empty = performance_report([])
    assert empty["requests"]["attempts"] == 0
    assert empty["reliability"]["successRate"] is None
    assert empty["throughput"]["requestsPerMinute"] is None
    assert empty["concurrency"] == {"peakInFlight": 0, "averageInFlight": None}
