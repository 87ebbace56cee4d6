"""The original's GPQA conversation: a fixed system message and the simple-evals user template.

The template is filled the way the original fills it: each token is replaced one after another
(question, then A, B, C, D), first occurrence only, with the text inserted verbatim. So `$LETTER`
in the template survives, `$&`/`$1` in the data stay literal, and a question that itself contains
`{option_a}` gets that text replaced instead of the slot, exactly as in the original.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

SYSTEM_MESSAGE = "You are a helpful assistant."

USER_TEMPLATE = (
    "Answer the following multiple choice question. The last line of your response should be "
    "of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD."
    "\n\n{prompt}\n\nA) {option_a}\nB) {option_b}\nC) {option_c}\nD) {option_d}"
)

_TOKENS = ("{prompt}", "{option_a}", "{option_b}", "{option_c}", "{option_d}")


def render_user_prompt(question: str, options: Sequence[str]) -> str:
    """Fill the user template with a question and its four options in display order.

    Args:
        question: the question text, used as it is (no trimming).
        options: the option texts shown at A, B, C and D.

    Returns:
        The user message, byte for byte as the original renders it.
    """
    if len(options) != 4:
        raise ValueError(f"GPQA needs exactly 4 options, got {len(options)}")
    text = USER_TEMPLATE
    for token, value in zip(_TOKENS, (question, *options), strict=True):
        # str.replace with count=1 is a literal first-occurrence replace: no `$` expansion.
        text = text.replace(token, value, 1)
    return text


def build_messages(user_prompt: str) -> list[dict[str, JsonValue]]:
    """The two messages sent before generation: the system message, then the user prompt."""
    return [
        {"role": "system", "content": SYSTEM_MESSAGE},
        {"role": "user", "content": user_prompt},
    ]
