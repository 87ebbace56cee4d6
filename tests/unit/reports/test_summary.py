"""The run summary (§5 fields) and failure normalisation."""

from __future__ import annotations

from datetime import UTC, datetime

from bench_common.reports import normalise_failure, summary
from tests.unit.reports.support import evaluation


def test_failures_are_normalised_and_counted() -> None:
    assert (
        normalise_failure("Model error after 7 attempt(s): HTTP 503 (x-request-id 9f8e7d6c5b4a)")
        == "Model error after <n> attempt(s): HTTP <n> (x-request-id <id>)"
    )
    uuid = "Solver error: run 3f2b1c4d-0a1b-4c2d-8e9f-001122334455 broke"
    assert normalise_failure(uuid) == "Solver error: run <id> broke"
    assert len(normalise_failure("Model error: " + "x" * 500)) == 200


def test_summary_fields() -> None:
    records = [
        evaluation(0, 0, "C"),
        evaluation(0, 1, "I", answer="A"),
        evaluation(1, 0, "C", subdomain="Chemistry"),
        evaluation(1, 1, "C", subdomain="Chemistry"),
        evaluation(2, 0, "S", explanation="Model error after 7 attempt(s): HTTP 503"),
        evaluation(2, 1, "S", explanation="Model error after 6 attempt(s): HTTP 502"),
        evaluation(0, 0, "I"),  # a duplicate of (0, 0): the first one wins
    ]
    created = datetime(2026, 3, 1, tzinfo=UTC)
    doc = summary(records, task="gpqa_diamond", model="m", epochs=2, temperature=1.0,
                  created_at=created)  # fmt: skip
    assert doc["task"] == "gpqa_diamond" and doc["createdAt"] == "2026-03-01T00:00:00+00:00"
    assert doc["accuracy"] == 0.75  # question 0: 0.5, question 1: 1.0
    assert doc["correctAnswers"] == 2 and doc["totalQuestions"] == 2
    assert doc["skippedQuestions"] == 1 and doc["uniqueQuestions"] == 3
    assert doc["evaluations"] == 6 and doc["skippedEvaluations"] == 2
    assert doc["inputTokens"] == 60 and doc["totalCost"] == 3.0
    assert doc["epochResults"] == [
        {"name": "Epoch 1", "epoch": 0, "accuracy": 1.0, "correctAnswers": 2,
         "totalQuestions": 2, "skippedQuestions": 1},
        {"name": "Epoch 2", "epoch": 1, "accuracy": 0.5, "correctAnswers": 1,
         "totalQuestions": 2, "skippedQuestions": 1},
    ]  # fmt: skip
    assert [s["name"] for s in doc["subdomains"]] == ["Physics", "Chemistry"]  # ascending
    assert doc["subdomains"][0]["accuracy"] == 0.5
    assert doc["failures"] == [
        {"message": "Model error after <n> attempt(s): HTTP <n>", "count": 2}
    ]
    interval = doc["accuracyInterval95"]
    assert interval["method"] == "wilson" and interval["lower"] < 0.75 < interval["upper"]


def test_summary_of_nothing() -> None:
    doc = summary([], task="gpqa_diamond", model="m", epochs=1)
    assert doc["evaluations"] == 0 and doc["accuracy"] == 0.0
    assert doc["accuracyInterval95"] is None and doc["epochResults"] == []
