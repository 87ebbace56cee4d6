"""The careful answer extractor: what a careful human grader reads as the chosen option.

Where the original takes the first match of its highest-ranked pattern, this extractor looks for
*declarations* of an answer and keeps the last one, in two tiers:

1. Labelled answers: "Answer: C", "the answer is C", "\\boxed{C}", "<answer>C</answer>",
   "correct option: C", the same in many languages, and a last line that holds only a letter.
2. Only when there is no labelled answer: a stated choice ("I'd go with C", "C is correct") or
   a last line that starts with a letter and its option text ("C) 4.2 eV").

Letters in running prose ("(A) ignores spin") are never read. A lowercase letter counts only
where it cannot be an article or part of a word ("answer: b." but not "the answer is a bit").
A declaration naming two letters ("C/D") or a letter outside A–D makes the result None.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

from bench_runner.benchmarks.gpqa import careful_patterns as vocab
from bench_runner.benchmarks.gpqa.careful_text import clean_response

OPTIONS: Final = frozenset("ABCD")

# Blank runs use possessive quantifiers (`*+`, `++`) throughout: a run is never re-scanned, so
# degenerate output (a model stuck emitting spaces or newlines) costs linear time.

# A declaration's head: a label and what links it to the letter. Spaced-script labels need a
# separator ("Answer:"), a copula ("answer is") or, at a line start, a bracket ("Answer (B)");
# CJK labels may touch the letter ("答案C").
_SPACED_HEAD = (
    rf"(?<!\w){vocab.alternation(vocab.SPACED_LABELS)}(?!\w)"
    rf"(?:[ \t]++{vocab.alternation(vocab.QUALIFIERS)}(?!\w)){{0,3}}"
    rf"(?:(?P<sep>[ \t]*+{vocab.SEPARATOR})"
    rf"|(?P<cop>[ \t]++{vocab.alternation(vocab.SPACED_COPULAS)}(?!\w)"
    rf"(?:[ \t]*+{vocab.SEPARATOR})?)"
    r"|(?P<brk>(?=[ \t]*+[(\[])))"
)
_PHRASE_HEAD = (
    rf"(?<!\w)(?P<phr>{vocab.alternation(vocab.COPULA_PHRASES)}(?!\w)(?:[ \t]*+{vocab.SEPARATOR})?)"
)
_UNSPACED_HEAD = (
    rf"{vocab.alternation(vocab.UNSPACED_LABELS)}"
    rf"(?:(?P<usep>[ \t]*+{vocab.SEPARATOR})"
    rf"|(?P<ucop>[ \t]*+{vocab.alternation(vocab.UNSPACED_COPULAS)}(?:[ \t]*+{vocab.SEPARATOR})?))?"
)
_LABEL_HEAD = re.compile(f"(?i:{_SPACED_HEAD}|{_PHRASE_HEAD}|{_UNSPACED_HEAD})")
_VERB_HEAD = re.compile(f"(?i:{vocab.CHOICE_VERBS}|{vocab.CJK_CHOICE_VERBS})")
_MAX_PREFIX = 40
_LINE_PREFIX = re.compile(r"[ \t>#\-]*+(?:(?i:final|correct|my)[ \t]++)?")

# The letter after a head: up to two line breaks, an optional "option", a bracket or quote.
_TOKEN = re.compile(
    r"[ \t]*+(?:\r?\n[ \t]*+){0,2}"
    rf"(?:(?i:{vocab.OPTION_WORDS})[ \t]*+)?"
    rf"(?P<open>[(\[{{\"“'‘])?[ \t]*+(?P<letter>{vocab.LETTER_CLASS})[ \t]*+"
    r"(?P<close>[)\]}\"”'’])?"
)
_LOWERCASE = frozenset("abcdefghijklmnopqrstuvwxyz\u0430\u0441")
_LOWERCASE_END = re.compile(r"[ \t]*+(?:$|[\n\r.,;:!?)\]}/|\-–—])")
_PRONOUN_I = re.compile(r"[ \t]*+['’]|[ \t]++[a-z]")
# A second letter right after the first ("C/D", "B or C") makes the declaration ambiguous.
_SECOND_LETTER = re.compile(
    r"[ \t]*+(?:/|,|&|\+|(?i:or|and|und|oder|ou|et|o|y|e|или|и)(?![A-Za-z])|或者|或|和)"
    r"[ \t]*+[(\[]?[ \t]*+[A-D](?![A-Za-z0-9])"
)
_LINE_END_LETTER = re.compile(r"(?<![A-Za-z0-9'’])[(\[\"“]?([A-D])[)\]\"”]?[ \t.!。]*$")
_MAX_TAIL = 160
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_STANDALONE_UPPER = re.compile(r"(?<![A-Za-z0-9'’])[A-D](?![A-Za-z0-9'’])")
# "Option C is correct", "(B) is the right one": a stated choice, weaker than a label.
_REVERSED = re.compile(
    r"(?<![A-Za-z0-9])(?:(?i:option|choice)[ \t]*+)?[(\[]?(?P<letter>[A-Z])[)\]]?[ \t]++"
    r"(?i:is|seems|appears)[ \t]++(?i:(?:to[ \t]++be[ \t]++)?(?:the[ \t]++)?)"
    r"(?i:correct|right|best)(?![A-Za-z])"
)
# A last line that is only a letter, perhaps bracketed or punctuated: "(B)", "D)", "b".
_BARE_LINE = re.compile(
    r"[ \t>#\-]*+(?:(?i:option|choice)[ \t]++)?[(\[]?[ \t]*+"
    rf"(?P<letter>{vocab.LETTER_CLASS})[ \t]*+[)\]]?[ \t]*+[.:)\-–—]?[ \t]*+"
)
# A last line that starts with a letter and its option text: "C) 4.2 eV".
_OPTION_LINE = re.compile(
    r"[ \t>#\-]*+(?:(?i:option|choice)[ \t]*+)?[(\[]?(?P<letter>[A-D])[ \t]*+[)\]]?[ \t]*+"
    r"[.:)\-–—][ \t]*+\S.*"
)
_OPTION_MARKER = re.compile(
    r"(?i:option|choice)[ \t]*+([A-D])(?![A-Za-z0-9])|(?<![A-Za-z0-9])([A-D])\)"
)


@dataclass(frozen=True)
class _Declaration:
    """A place where the response states an answer; `letter` None means no single letter."""

    position: int
    letter: str | None


@dataclass(frozen=True)
class _Token:
    letter: str | None
    bracketed: bool


def _to_option(ch: str) -> str:
    return vocab.LETTER_MAP.get(ch, ch).upper()


def _glued(letter: str, following: str) -> bool:
    """Whether the character after a letter makes it part of a word ("Ké", "ব" + vowel sign)."""
    if not following:
        return False
    category = unicodedata.category(following)
    if category[0] in "MN":
        return True
    if category[0] != "L":
        return False
    if letter not in vocab.LATIN_LETTERS:
        return True  # a letter of a non-Latin script followed by another letter: a word
    # After a Latin letter only alphabetic scripts glue; CJK and Hangul do not ("Bです").
    code = ord(following)
    return code < 0x0530 or 0x1E00 <= code <= 0x1EFF


def _read_token(text: str, start: int) -> _Token | None:
    """The letter a declaration names at `start`, if the next thing there is a letter."""
    match = _TOKEN.match(text, start)
    if match is None:
        return None
    raw = match.group("letter")
    end = match.end("letter")
    bracketed = match.group("open") is not None
    if _glued(raw, text[end : end + 1]):
        return None
    if not bracketed and raw in _LOWERCASE and not _LOWERCASE_END.match(text, end):
        return None  # an article or a word ("is a bit"), not an option
    if not bracketed and raw == "I" and _PRONOUN_I.match(text, end):
        return None
    if _SECOND_LETTER.match(text, match.end()):
        return _Token(None, bracketed)  # "C/D", "B or C": no single answer
    return _Token(_to_option(raw), bracketed)


def _line_end_letter(text: str, start: int) -> _Token | None:
    """After a label whose next word is not a letter: the one letter that ends that line."""
    limit = start + _MAX_TAIL
    stop = _LINE_BREAK.search(text, start, limit + 1)
    if stop is None and limit < len(text):
        return None  # a long line is prose, not an answer
    line = text[start : stop.start() if stop else len(text)]
    match = _LINE_END_LETTER.search(line)
    if match is None or set(_STANDALONE_UPPER.findall(line)) != {match.group(1)}:
        return None
    if vocab.NEGATIONS.search(line, 0, match.start()):
        return None
    return _Token(match.group(1), False)


def _starts_line(text: str, position: int) -> bool:
    """Whether only list or heading markup, or "Final"/"Correct", precedes `position`."""
    window = text[max(0, position - _MAX_PREFIX) : position]
    cut = max(window.rfind("\n"), window.rfind("\r"))
    if cut < 0 and position > _MAX_PREFIX:
        return False
    return _LINE_PREFIX.fullmatch(window, cut + 1) is not None


def _labelled(text: str) -> list[_Declaration]:
    """Every labelled answer, in text order."""
    found: list[_Declaration] = []
    for head in _LABEL_HEAD.finditer(text):
        token = _read_token(text, head.end())
        if head.group("brk") is not None:
            # "Answer (B)" without a colon counts only as a line's label, not inside prose.
            if token is None or not token.bracketed or not _starts_line(text, head.start()):
                continue
        elif token is None and any(head.group(g) for g in ("sep", "cop", "phr", "usep", "ucop")):
            token = _line_end_letter(text, head.end())
        if token is not None:
            found.append(_Declaration(head.start(), token.letter))
    return found


def _stated(text: str) -> list[_Declaration]:
    """Every stated choice ("I'd go with C", "C is correct"), in text order."""
    found: list[_Declaration] = []
    for head in _VERB_HEAD.finditer(text):
        token = _read_token(text, head.end())
        if token is not None:
            found.append(_Declaration(head.start(), token.letter))
    for match in _REVERSED.finditer(text):
        found.append(_Declaration(match.start(), _to_option(match.group("letter"))))
    return found


def _last_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()][-2:]


def _bare_last_line(text: str) -> _Declaration | None:
    lines = _last_lines(text)
    match = _BARE_LINE.fullmatch(lines[-1]) if lines else None
    if match is None or _to_option(match.group("letter")) not in OPTIONS:
        return None
    return _Declaration(len(text), _to_option(match.group("letter")))


def _option_last_line(text: str) -> _Declaration | None:
    lines = _last_lines(text)
    match = _OPTION_LINE.fullmatch(lines[-1]) if lines else None
    if match is None:
        return None
    # The end of a list of options ("A) ...", "B) ...") is not a choice.
    if len(lines) == 2 and _OPTION_LINE.fullmatch(lines[0]):
        return None
    if len({a or b for a, b in _OPTION_MARKER.findall(lines[-1])}) > 1:
        return None
    return _Declaration(len(text), match.group("letter"))


def extract_careful(text: str) -> str | None:
    """The option letter a careful grader reads as the response's final answer.

    Args:
        text: the assistant message content.

    Returns:
        One of "A", "B", "C", "D", or None when there is no single declared answer among them.
    """
    if not text or not text.strip():
        return None
    cleaned = clean_response(text)
    declarations = _labelled(cleaned)
    bare = _bare_last_line(cleaned)
    if bare is not None:
        declarations.append(bare)
    if not declarations:
        declarations = _stated(cleaned)
        last_line = _option_last_line(cleaned)
        if last_line is not None:
            declarations.append(last_line)
    if not declarations:
        return None
    letter = max(declarations, key=lambda d: d.position).letter
    return letter if letter in OPTIONS else None
