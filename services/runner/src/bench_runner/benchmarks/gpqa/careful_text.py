"""Normalising a response before the careful extractor reads it.

Answers hide behind formatting: full-width or mathematical letters, zero-width characters,
Markdown emphasis, HTML tags, LaTeX boxes. Normalising first lets the patterns stay simple.
Positions the extractor reports are positions in the cleaned text, which is all it compares.
"""

from __future__ import annotations

import re
import unicodedata

# Invisible format characters (zero-width spaces and joiners, bidi marks, soft hyphen, BOM).
_FORMAT_CHARS = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]"
)
_STRIKETHROUGH = re.compile(r"~~[^~\n]*~~")
_ANSWER_TAG_OPEN = re.compile(r"<\s*(?:final[_ ]?)?answer\s*>", re.IGNORECASE)
_ANSWER_TAG_CLOSE = re.compile(r"<\s*/\s*(?:final[_ ]?)?answer\s*>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_LATEX_WRAPPER = re.compile(
    r"\\(?:text|textbf|textit|textrm|textsf|texttt|mathrm|mathbf|mathit|mathsf|emph|mbox"
    r"|operatorname)\s*\{([^{}]*)\}"
)
_LATEX_BOX = re.compile(r"\\(?:boxed|fbox|framebox)\s*\{([^{}]*)\}")
_MARKUP = re.compile(r"\\[()\[\]]|[$*_`]")
_MAX_UNWRAP = 4


def clean_response(text: str) -> str:
    """The response with formatting that can hide an answer removed.

    NFKC folds full-width, circled and mathematical letters, the long s and the Kelvin sign
    onto ASCII; struck-through text is dropped as retracted; `<answer>` tags and `\\boxed{}`
    become "Answer:" labels, since both declare an answer; LaTeX text wrappers are unwrapped;
    emphasis, backticks, `$` and `\\(`/`\\[` delimiters are deleted.

    Args:
        text: the assistant message content.

    Returns:
        The cleaned text.
    """
    text = unicodedata.normalize("NFKC", text)
    text = _FORMAT_CHARS.sub("", text)
    text = _STRIKETHROUGH.sub("", text)
    text = _ANSWER_TAG_OPEN.sub(" Answer: ", text)
    text = _ANSWER_TAG_CLOSE.sub(" ", text)
    text = _HTML_TAG.sub("", text)
    for _ in range(_MAX_UNWRAP):  # nested wrappers inside a box, innermost first
        text, count = _LATEX_WRAPPER.subn(r"\1", text)
        if not count:
            break
    text = _LATEX_BOX.sub(r" Answer: \1 ", text)
    return _MARKUP.sub("", text)
