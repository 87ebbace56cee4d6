"""The system message and the user prompt, byte for byte (parity README §1)."""

from __future__ import annotations

from typing import Any

import pytest

from bench_runner.benchmarks.gpqa.prompt import (
    SYSTEM_MESSAGE,
    USER_TEMPLATE,
    build_messages,
    render_user_prompt,
)

EXPECTED_HEAD = (
    "Answer the following multiple choice question. The last line of your response should be of "
    "the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD.\n\n"
)


def test_template_and_system_message_match_the_original(
    permutation_vectors: dict[str, Any],
) -> None:
    assert permutation_vectors["prompt"]["user_template"] == USER_TEMPLATE
    assert (
        permutation_vectors["prompt"]["system"] == SYSTEM_MESSAGE == "You are a helpful assistant."
    )


def test_row_zero_example_rendering(permutation_vectors: dict[str, Any]) -> None:
    names = ["Correct", "Incorrect1", "Incorrect2", "Incorrect3"]
    texts = {"Correct": "CORRECT", "Incorrect1": "INC1", "Incorrect2": "INC2", "Incorrect3": "INC3"}
    order = permutation_vectors["rows"][0]["options_in_order"]
    assert sorted(order) == sorted(names)
    rendered = render_user_prompt("QUESTION_TEXT", [texts[name] for name in order])
    assert rendered == permutation_vectors["prompt"]["example_index0_rendered_user_message"]


def test_layout_byte_for_byte() -> None:
    rendered = render_user_prompt("Q?", ["one", "two", "three", "four"])
    assert rendered == EXPECTED_HEAD + "Q?\n\nA) one\nB) two\nC) three\nD) four"
    assert not rendered.endswith("\n")
    assert rendered.encode("utf-8").count(b"\n") == 7


@pytest.mark.parametrize(
    "text", ["$5", "$&", "$1", "$$", "$'", "$`", "$LETTER", "{}", "{0}", "\\1", "\\g<0>"]
)
def test_inserted_text_is_literal(text: str) -> None:
    rendered = render_user_prompt(f"q {text}", [text, "b", "c", "d"])
    assert f"\n\nq {text}\n\nA) {text}\nB) b" in rendered
    assert rendered.startswith(EXPECTED_HEAD)
    assert "'Answer: $LETTER'" in rendered


def test_text_is_not_trimmed_and_line_breaks_survive() -> None:
    rendered = render_user_prompt("  line one\nline two  ", ["a\nb", " c ", "d", "e"])
    assert rendered.endswith("\n\n  line one\nline two  \n\nA) a\nb\nB)  c \nC) d\nD) e")


def test_tokens_are_replaced_first_occurrence_in_sequence() -> None:
    # The original's quirk: a question holding "{option_a}" has that text replaced instead of
    # the slot, which then stays in the prompt.
    rendered = render_user_prompt("pick {option_a}", ["X", "Y", "Z", "W"])
    assert rendered.endswith("\n\npick X\n\nA) {option_a}\nB) Y\nC) Z\nD) W")


def test_a_question_holding_the_prompt_token_is_inserted_once() -> None:
    rendered = render_user_prompt("{prompt}", ["a", "b", "c", "d"])
    assert rendered == EXPECTED_HEAD + "{prompt}\n\nA) a\nB) b\nC) c\nD) d"


def test_build_messages() -> None:
    assert build_messages("hello") == [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "hello"},
    ]


def test_four_options_are_required() -> None:
    with pytest.raises(ValueError, match="exactly 4"):
        render_user_prompt("q", ["a", "b", "c"])
