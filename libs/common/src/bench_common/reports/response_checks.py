"""Response-quality checks of one GPQA response (the dashboard's diagnostics, §7).

Each check is a cheap test on the text; together they explain why answers were not
extracted: an empty response, a missing or repeated `Answer: X` line, a repetition loop, no
exposed reasoning, a response too long to be healthy.

A repetition loop is what a model stuck repeating itself leaves behind: a line of 20+
characters repeated 3 times or an 8-word phrase repeated 4 times, running on until the token
limit. So the check applies to responses that do not end with a well-formed `Answer: X` line (a
model that wrote one got out of any loop), reads their last `LOOP_TAIL_CHARS` characters, and
prunes with a necessary condition before counting phrases (see `_phrase_loop`). It is the only
check whose cost grows with the text. Nothing is memoised: every report reads each response
once (the api folds a live run's evaluations as they come), and responses are unique.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

LOOP_LINE_CHARS = 20
LOOP_LINE_REPEATS = 3
LOOP_PHRASE_WORDS = 8
LOOP_PHRASE_REPEATS = 4
LOOP_TAIL_CHARS = 4_000
LONG_RESPONSE_CHARS = 20_000

_DECORATION = " \t*_#>`"
_FINAL_ANSWER = re.compile(r"answer\s*[:：]\s*\(?\[?([A-D])\]?\)?\.?", re.IGNORECASE)
_DECLARATION = re.compile(r"^[\s*_#>`]*answer\s*[:：]", re.IGNORECASE | re.MULTILINE)


class ResponseChecks(NamedTuple):
    """What the checks found in one response (True = the problem is present)."""

    empty_response: bool
    missing_final_answer_line: bool
    multiple_answer_declarations: bool
    repetition_loop: bool
    long_response: bool


def check_response(text: str) -> ResponseChecks:
    """Run every text check on one response."""
    stripped = text.strip()
    answered = _has_final_answer_line(stripped)
    return ResponseChecks(
        empty_response=not stripped,
        missing_final_answer_line=not answered,
        multiple_answer_declarations=_declarations(text) > 1,
        repetition_loop=not answered and has_repetition_loop(text[-LOOP_TAIL_CHARS:]),
        long_response=len(text) > LONG_RESPONSE_CHARS,
    )


def _has_final_answer_line(stripped: str) -> bool:
    """The last non-empty line is exactly `Answer: X` (markdown emphasis allowed)."""
    last = stripped.rpartition("\n")[2].strip(_DECORATION)
    match = _FINAL_ANSWER.fullmatch(last.replace("*", "").replace("_", "").strip())
    return match is not None


def _declarations(text: str) -> int:
    """How many lines start with `Answer:` (emphasis allowed); 0 or 1 found cheaply."""
    if text.count("nswer") + text.count("NSWER") < 2:  # substring counts run at C speed
        return 1
    return len(_DECLARATION.findall(text))


def has_repetition_loop(text: str) -> bool:
    """A line of 20+ characters repeated 3 times, or an 8-word phrase repeated 4 times
    (lines compared without surrounding blanks, words split on whitespace)."""
    return _line_loop(text) or _phrase_loop(text.split())


def _line_loop(text: str) -> bool:
    lines = text.splitlines()
    if len(lines) < LOOP_LINE_REPEATS:
        return False
    counts = Counter(map(str.strip, lines))
    blank = counts.pop("", 0)
    if len(lines) - blank - len(counts) < LOOP_LINE_REPEATS - 1:
        return False  # fewer duplicate lines than one line repeated 3 times needs
    return any(n >= LOOP_LINE_REPEATS and len(s) >= LOOP_LINE_CHARS for s, n in counts.items())


def _phrase_loop(words: list[str]) -> bool:
    """Whether some 8-word phrase occurs at 4 or more positions.

    Counting every 8-word window is the slow part of a report, so a necessary condition
    prunes first. Take the 6-word windows that start at multiples of 3. Any 8-word phrase
    contains the aligned 6-word window starting at its first position that is a multiple of
    3 (offset 0, 1 or 2, and 2 + 6 <= 8). Among 4 occurrences two share that offset (only 3
    offsets exist), so the same aligned 6-word window appears twice. Ordinary text rarely
    repeats 6 words, and this costs a third of the full count.
    """
    if len(words) < LOOP_PHRASE_WORDS * LOOP_PHRASE_REPEATS:
        return False
    aligned = zip(*(words[offset::3] for offset in range(6)), strict=False)
    if len(set(aligned)) == (len(words) - 6) // 3 + 1:  # every aligned window is distinct
        return False
    windows = Counter(zip(*(words[i:] for i in range(LOOP_PHRASE_WORDS)), strict=False))
    return max(windows.values()) >= LOOP_PHRASE_REPEATS
