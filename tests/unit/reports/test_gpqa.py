"""The GPQA report: items and every analytic."""

from __future__ import annotations

from bench_common.reports import gpqa_report
from bench_common.reports.gpqa_items import parse_prompt
from tests.unit.reports.support import PROMPT, evaluation

LOOP = "\n".join(["I keep going round in circles here, again."] * 4)


def test_prompt_parses_back_into_question_and_choices() -> None:
    parsed = parse_prompt(PROMPT.format(n=4))
    assert parsed.question == "What is 4 + 1?"
    assert parsed.choices == {"A": "one", "B": "two", "C": "three", "D": "four"}
    assert parse_prompt("no choices here") == ("no choices here", {})


def test_items_carry_status_choices_and_answers() -> None:
    report = gpqa_report([
        evaluation(0, 0, "C"),
        evaluation(0, 1, "I", answer="A"),
        evaluation(1, 0, "I", answer=None, content="I am not sure."),
        evaluation(1, 1, "S", explanation="Model error after 7 attempt(s): HTTP 503"),
    ])  # fmt: skip
    items = report["items"]
    assert [i["status"] for i in items] == ["correct", "wrong", "no_answer", "skipped"]
    first = items[0]
    assert first["sampleId"] == "gpqa_diamond-0" and first["epoch"] == 0
    assert first["question"] == "What is 0 + 1?" and first["choices"]["B"] == "two"
    assert first["correctAnswer"] == "B" and first["correctAnswerText"] == "two"
    assert first["modelAnswer"].endswith("Answer: B") and first["extractedAnswer"] == "B"
    assert first["reasoning"] == "thinking" and first["subdomain"] == "Physics"
    assert first["latencyMs"] == 1_000 and first["prompt"].startswith("Answer the following")
    assert report["counts"] == {"correct": 1, "wrong": 1, "noAnswer": 1, "skipped": 1}


def test_accuracy_and_its_interval() -> None:
    records = [evaluation(i, 0, "C" if i % 4 else "I", answer="B" if i % 4 else "A")
               for i in range(40)]  # fmt: skip
    report = gpqa_report(records)
    assert report["accuracy"] == 0.75 and report["totalQuestions"] == 40
    interval = report["accuracyInterval95"]
    assert interval["method"] == "wilson" and interval["questions"] == 40
    assert 0.59 < interval["lower"] < 0.62 and 0.85 < interval["upper"] < 0.87


def test_latency_buckets_exclude_skipped_and_unmeasured() -> None:
    records = [
        evaluation(0, latency_ms=30_000),  # <=30 s (inclusive)
        evaluation(1, latency_ms=30_001, score="I", answer="A"),
        evaluation(2, latency_ms=90_000),
        evaluation(3, latency_ms=2_000_000),
        evaluation(4, latency_ms=None),
        evaluation(5, score="S", latency_ms=10),
    ]
    buckets = gpqa_report(records)["analytics"]["latencyBuckets"]
    assert [b["label"] for b in buckets] == [
        "≤30 s", "30–60 s", "1–2 m", "2–5 m", "5–10 m", "10–30 m", ">30 m",
    ]  # fmt: skip
    assert [b["count"] for b in buckets] == [1, 1, 1, 0, 0, 0, 1]
    assert buckets[1] == {
        "label": "30–60 s", "count": 1, "correct": 0, "wrong": 1, "noAnswer": 0, "accuracy": 0.0
    }  # fmt: skip
    assert buckets[3]["accuracy"] is None


def test_epoch_consistency_partitions_the_questions() -> None:
    records = [
        evaluation(0, 0, "C"), evaluation(0, 1, "C"),                        # consistent C
        evaluation(1, 0, "I", answer="A"), evaluation(1, 1, "I", answer="C"),  # consistent I
        evaluation(2, 0, "C"), evaluation(2, 1, "I", answer="A"),            # mixed
        evaluation(3, 0, "C"), evaluation(3, 1, "C"), evaluation(3, 2, "S"),  # incomplete
        evaluation(4, 0, "S"), evaluation(4, 1, "S"),                        # all skipped
        evaluation(5, 0, "C"), evaluation(5, 1, "S"),                        # single
    ]  # fmt: skip
    consistency = gpqa_report(records)["analytics"]["epochConsistency"]
    assert consistency == {
        "questions": 6,
        "consistentlyCorrect": 1,
        "consistentlyIncorrect": 1,
        "mixedOrIncomplete": 2,
        "allSkipped": 1,
        "singleObservation": 1,
    }


def test_response_quality_diagnostics() -> None:
    records = [
        evaluation(0),
        evaluation(1, score="I", answer=None, content="", reasoning=""),
        evaluation(2, score="I", answer=None, content=LOOP),
        evaluation(3, score="I", answer="A", content="Answer: A\nmaybe\nAnswer: A"),
        evaluation(4, content="x" * 20_001 + "\nAnswer: B", reasoning=""),
        evaluation(5, score="S"),  # skipped evaluations are not diagnosed
    ]
    quality = gpqa_report(records)["analytics"]["responseQuality"]
    counts = {key: check["count"] for key, check in quality["checks"].items()}
    assert quality["evaluations"] == 5
    assert counts == {
        "emptyResponse": 1,
        "noExtractedAnswer": 2,
        "missingFinalAnswerLine": 2,
        "multipleAnswerDeclarations": 1,
        "repetitionLoop": 1,
        "noExposedReasoning": 2,
        "longResponse": 1,
    }
    loop = quality["checks"]["repetitionLoop"]
    assert loop["examples"] == [{"sampleId": "gpqa_diamond-2", "epoch": 0}]
    assert loop["rate"] == 0.2 and loop["label"] == "Repetition loop"


def test_length_buckets() -> None:
    records = [
        evaluation(0, content="", reasoning="", answer=None, score="I"),
        evaluation(1, content="a" * 500, reasoning="r" * 501),
        evaluation(2, content="a" * 2_000, reasoning="r" * 8_001),
    ]
    analytics = gpqa_report(records)["analytics"]
    assert [b["label"] for b in analytics["responseLengthBuckets"]] == [
        "0", "1–500", "501–2k", "2k–8k", ">8k",
    ]  # fmt: skip
    assert [b["count"] for b in analytics["responseLengthBuckets"]] == [1, 1, 1, 0, 0]
    assert [b["count"] for b in analytics["reasoningLengthBuckets"]] == [1, 0, 1, 0, 1]


def test_hardest_questions_order() -> None:
    records = []
    for sample in range(25):
        records.append(evaluation(sample, 0, "C", latency_ms=1_000))
        records.append(evaluation(sample, 1, "C", latency_ms=1_000))
    records[0:4] = [
        evaluation(0, 0, "I", answer="A", latency_ms=5_000),
        evaluation(0, 1, "I", answer=None, content="hm", latency_ms=5_000),  # 0%, 1 no answer
        evaluation(1, 0, "I", answer="A", latency_ms=9_000),
        evaluation(1, 1, "I", answer="C", latency_ms=9_000),  # 0%, no "no answer"
    ]
    records[4:6] = [evaluation(2, 0, "C", latency_ms=7_000),
                    evaluation(2, 1, "I", answer="D", latency_ms=7_000)]  # fmt: skip
    hardest = gpqa_report(records)["analytics"]["hardestQuestions"]
    assert len(hardest) == 20
    assert [h["sampleId"] for h in hardest[:3]] == [
        "gpqa_diamond-0", "gpqa_diamond-1", "gpqa_diamond-2",
    ]  # fmt: skip
    first = hardest[0]
    assert first["accuracy"] == 0.0 and first["noAnswer"] == 1 and first["wrong"] == 1
    assert first["averageLatencyMs"] == 5_000 and first["question"] == "What is 0 + 1?"
    assert first["answerDistribution"] == {"A": 1, "none": 1}


def test_epoch_trends() -> None:
    records = [
        evaluation(0, 0, "C", latency_ms=1_000, content="x" * 100, reasoning="r" * 10),
        evaluation(1, 0, "I", answer=None, content="y" * 300, latency_ms=3_000, reasoning=""),
        evaluation(0, 1, "S"),
        evaluation(1, 1, "C", latency_ms=2_000),
    ]
    trends = gpqa_report(records)["analytics"]["epochTrends"]
    assert trends[0] == {
        "epoch": 0, "name": "Epoch 1", "evaluations": 2, "scored": 2, "correct": 1,
        "accuracy": 0.5, "skipped": 0, "noAnswer": 1, "averageLatencyMs": 2_000.0,
        "averageResponseChars": 200.0, "averageReasoningChars": 5.0,
    }  # fmt: skip
    assert trends[1]["skipped"] == 1 and trends[1]["accuracy"] == 1.0
