"""Response-quality checks, and the pruned phrase counter against a brute-force one."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from bench_common.reports.response_checks import (
    _phrase_loop,
    check_response,
    has_repetition_loop,
)


def _brute_force(words: list[str]) -> bool:
    windows = Counter(tuple(words[i : i + 8]) for i in range(len(words) - 7))
    return len(words) >= 32 and any(n >= 4 for n in windows.values())


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=0, max_size=120))
def test_pruned_phrase_count_matches_brute_force(words: list[str]) -> None:
    assert _phrase_loop(words) == _brute_force(words)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["x", "y", "z", "w", "v"]), min_size=8, max_size=8),
    st.lists(st.lists(st.sampled_from(["p", "q"]), max_size=5), min_size=5, max_size=5),
)
def test_a_phrase_four_times_is_always_found(phrase: list[str], gaps: list[list[str]]) -> None:
    words = gaps[0] + phrase + gaps[1] + phrase + gaps[2] + phrase + gaps[3] + phrase + gaps[4]
    assert _phrase_loop(words)


def test_line_and_phrase_loops() -> None:
    line = "Let me reconsider the whole problem again."
    assert has_repetition_loop("\n".join([line, "x", f"  {line}", line]))
    assert not has_repetition_loop("\n".join([line, line, "short", "short", "short"]))
    phrase = "the value is near the lower bound of"
    filler = [f"word{i}" for i in range(30)]
    assert has_repetition_loop(" ".join([phrase] * 4 + filler))
    assert not has_repetition_loop(" ".join([phrase] * 3 + filler))


def test_healthy_response() -> None:
    checks = check_response("Working it out.\n\n**Answer: B**")
    assert not any(checks)


def test_each_problem_is_found() -> None:
    assert check_response("   ").empty_response
    assert check_response("I think it is B.").missing_final_answer_line
    assert check_response("Answer: A\nthen\nAnswer: B").multiple_answer_declarations
    assert check_response("x" * 20_001 + "\nAnswer: B").long_response
    loop = "\n".join(["I keep going round in circles here."] * 5)
    assert check_response(loop).repetition_loop


def test_a_loop_the_model_escaped_is_not_a_loop() -> None:
    # A response that still ends with a well-formed answer line got out of its loop.
    text = "\n".join(["I keep going round in circles here."] * 5 + ["Answer: C"])
    checks = check_response(text)
    assert not checks.repetition_loop and not checks.missing_final_answer_line
