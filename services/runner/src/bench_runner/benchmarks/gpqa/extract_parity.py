"""The original harness's multiple-choice answer extraction, quirks included.

Thirteen format families (F0–F12) run on the raw text, then 46 multilingual label families
(M0–M45) on a copy stripped of some Markdown/LaTeX. Each family is searched once (leftmost
match); the lowest-numbered family that yields a letter wins, wherever it sits in the text. This
module reproduces that cascade exactly, including what looks wrong (parity README §3–§5): it is
the `parity` extractor, kept so that scores stay comparable with runs of the original.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from bench_runner.benchmarks.gpqa.js_regex import (
    LINE_END,
    LINE_START,
    WORD_BOUNDARY,
    WS,
    ci_literal,
)
from bench_runner.benchmarks.gpqa.parity_labels import (
    CLEANUP_TOKENS,
    LABEL_LETTER,
    LABELS,
    LETTER_MAP,
    WS_MARK,
)

_E = r"(?:\*{1,2}|_{1,2})"
_S = f"{WS}*"
# A whitespace run that backtracking can never shorten usefully (the next token is not
# whitespace): possessive, so long runs cost linear time. Same matches as `_S`.
_SP = f"{WS}*+"
_SEP = "[:\\-\u2013]?"
_CI_LETTER = "([A-Za-z])"
_CS_LETTER = "([A-Z])"
_NO_ALNUM_BEFORE = "(?<![A-Za-z0-9])"
_NO_ALNUM_AFTER = "(?![A-Za-z0-9])"
_WB = WORD_BOUNDARY
_ANSWER = ci_literal("Answer")
_ANSWERS = f"{_ANSWER}[Ss]?"
_OPTION_OR_CHOICE = f"(?:{ci_literal('Option')}|{ci_literal('Choice')})"

_Family = Callable[[str], "str | None"]


def _anywhere(pattern: str) -> _Family:
    """A family matched at the leftmost position anywhere in the text."""
    compiled = re.compile(pattern)

    def search(text: str) -> str | None:
        match = compiled.search(text)
        return match.group(1) if match else None

    return search


_WS_RUN = re.compile(_SP)
_LINE_BREAK = re.compile("[\n\r\u2028\u2029]")


def _at_line_starts(pattern: str) -> _Family:
    """A family anchored at JS line starts whose pattern begins with a possessive `\\s*`.

    From every line start inside one whitespace run that leading `\\s*` ends at the same place,
    so if the first of them fails they all do: skipping them gives the same leftmost match as a
    plain search without the quadratic cost on runs of blank lines.
    """
    compiled = re.compile(f"{LINE_START}{_SP}{pattern}")

    def search(text: str) -> str | None:
        start = 0
        while True:
            match = compiled.match(text, start)
            if match:
                return match.group(1)
            run_end = _WS_RUN.match(text, start)
            line_break = _LINE_BREAK.search(text, run_end.end() if run_end else start)
            if line_break is None:
                return None
            start = line_break.end()

    return search


_CAPITAL = re.compile("[A-Z]")


def _first_capital_in_braces(opener: str) -> _Family:
    """`<opener>[^}]*?([A-Z])[^}]*}`: the first capital before the first closing brace.

    Computed with monotone scans instead of a regex, which would rescan to the closing brace
    from every opener and take quadratic time on an unclosed run of openers.
    """

    def search(text: str) -> str | None:
        close = capital = -1
        at = text.find(opener)
        while at >= 0:
            content = at + len(opener)
            if close < content:
                close = text.find("}", content)
                if close < 0:
                    return None
            if capital < content:
                found = _CAPITAL.search(text, content)
                if found is None:
                    return None
                capital = found.start()
            if capital < close:
                return text[capital]
            at = text.find(opener, at + 1)
        return None

    return search


_FORMAT_FAMILIES: Final[tuple[_Family, ...]] = (
    # F0: emphasised "Answer(s)", optional separator, closing emphasis, letter, boundary.
    _anywhere(f"{_E}{_ANSWERS}{_SP}{_SEP}{_E}{_SP}{_CI_LETTER}{_WB}"),
    # F1: a line starting with "Answer"; the first letter after it, no boundary after. The
    # atomic group matches what `\\s*:?\\s*` matches: only its longest match can be followed
    # by an emphasis or a letter.
    _at_line_starts(f"{_E}?{_ANSWER}:?{_E}?(?>{_S}:?{_S}){_E}?{_CI_LETTER}"),
    # F2: "Answer (X)".
    _anywhere(f"{_WB}{_ANSWERS}{_WB}{_SP}{_SEP}{_SP}\\({_SP}{_CI_LETTER}{_SP}\\)"),
    # F3: "Answer X" anywhere.
    _anywhere(f"{_WB}{_ANSWERS}{_WB}{_SP}{_SEP}{_SP}{_CI_LETTER}{_WB}"),
    # F4: "Option X" / "Choice X".
    _anywhere(f"{_WB}{_OPTION_OR_CHOICE}{_WB}{_SP}{_SEP}{_SP}{_CI_LETTER}{_WB}"),
    # F5: the first capital letter inside \boxed{...}. F6 and F7 (\textbf{} or \text{} inside
    # \boxed{}) are left out: whenever they match, F5 matches first (README §3.4).
    _first_capital_in_braces("\\boxed{"),
    # F8: (X) or [X], brackets may be mixed.
    _anywhere(f"{_NO_ALNUM_BEFORE}[(\\[]{_SP}{_CS_LETTER}{_SP}[)\\]]{_NO_ALNUM_AFTER}"),
    # F9: **X**, *X*, _X_.
    _anywhere(f"{_NO_ALNUM_BEFORE}{_E}{_CS_LETTER}{_E}{_NO_ALNUM_AFTER}"),
    # F10: the first capital letter inside \textbf{...}.
    _first_capital_in_braces("\\textbf{"),
    # F11: an emphasised "X) option text".
    _anywhere(f"{_NO_ALNUM_BEFORE}{_E}{_SP}{_CS_LETTER}\\)[^*_\\n]+?{_E}{_NO_ALNUM_AFTER}"),
    # F12: a line holding only the letter, perhaps emphasised and punctuated. The tail is
    # `\\s*[.)\\-–:]?\\s*$` regrouped so that a long blank run is not retried in pairs.
    _at_line_starts(f"{_E}?{_CS_LETTER}{_E}?(?:{_S}[.)\\-\u2013:])?{_S}{LINE_END}"),
)

_LABEL_FAMILIES: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(_S.join(ci_literal(part) for part in label.split(WS_MARK)) + "[ \t]*" + LABEL_LETTER)
    for label in LABELS
)

_ASCII_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def strip_markup(text: str) -> str:
    """The original's cleaned view of a response: literal tokens deleted in a fixed order."""
    for token in CLEANUP_TOKENS:
        text = text.replace(token, "")
    return text


def _normalise_label_letter(captured: str) -> str | None:
    letter = LETTER_MAP.get(captured, captured).upper()
    return letter if letter in _ASCII_UPPER else None


def extract_parity(text: str) -> str | None:
    """The letter the original harness extracts from a completion.

    Args:
        text: the assistant message content.

    Returns:
        One uppercase ASCII letter (any of A–Z, as the original), or None.
    """
    if not text:
        return None
    for family in _FORMAT_FAMILIES:
        letter = family(text)
        if letter is not None:
            return letter.upper()
    cleaned = strip_markup(text)
    for pattern in _LABEL_FAMILIES:
        match = pattern.search(cleaned)
        if match:
            # A rejected letter means this family contributes nothing; it is not retried
            # further along the text, but later families still run.
            letter = _normalise_label_letter(match.group(1))
            if letter is not None:
                return letter
    return None
