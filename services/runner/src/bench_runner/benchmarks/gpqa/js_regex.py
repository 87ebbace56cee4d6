"""Building blocks that make Python `re` behave like the original's JavaScript regexes.

The original's patterns run in JavaScript without the `u` flag, which differs from Python `re`
in four ways that change answers (parity README §4): `\\b` is ASCII-only, `^`/`$` also break at
`\\r`, U+2028 and U+2029, `\\s` is a different set, and case-insensitive matching never folds a
non-ASCII character onto an ASCII one (no `ſ`→s, `K`→k, `ı`→i). These helpers spell each of
those out explicitly so the patterns never depend on Python's own `re.I`, `re.M` or `\\s`.
"""

from __future__ import annotations

import functools
import re

# JS WhiteSpace + LineTerminator: Zs, tab, VT, FF, BOM, LF, CR, LS, PS.
_WS_CHARS = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
WS = f"[{_WS_CHARS}]"
"""One JavaScript `\\s` character."""

_LINE_TERMINATORS = "\n\r\u2028\u2029"
LINE_START = f"(?<![^{_LINE_TERMINATORS}])"
"""JS `^` under the `m` flag: at the start of the text or right after a line terminator."""
LINE_END = f"(?![^{_LINE_TERMINATORS}])"
"""JS `$` under the `m` flag: at the end of the text or right before a line terminator."""

_WORD = "A-Za-z0-9_"
WORD_BOUNDARY = f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))"
"""JS `\\b` without the `u` flag: a boundary between ASCII word and non-word characters."""

_BMP = 0x10000


def js_canonicalize(ch: str) -> str:
    """JavaScript's case-insensitive Canonicalize for one UTF-16 unit, non-Unicode mode.

    The character upper-cases to itself unless the mapping is a single unit, and a non-ASCII
    character never maps onto an ASCII one.
    """
    upper = ch.upper()
    if len(upper) != 1 or ord(upper) >= _BMP:
        return ch
    if ord(ch) >= 128 and ord(upper) < 128:
        return ch
    return upper


@functools.cache
def _canonical_classes() -> dict[str, frozenset[str]]:
    """Every BMP character grouped by its canonical form (only groups of two or more kept)."""
    groups: dict[str, set[str]] = {}
    for code in range(_BMP):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        groups.setdefault(js_canonicalize(ch), set()).add(ch)
    return {canon: frozenset(chars) for canon, chars in groups.items() if len(chars) > 1}


def ci_char(ch: str) -> str:
    """A pattern matching `ch` the way a JS `/i` regex (no `u` flag) matches it."""
    group = _canonical_classes().get(js_canonicalize(ch))
    if group is None:
        return re.escape(ch)
    return "[" + "".join(re.escape(c) for c in sorted(group)) + "]"


def ci_literal(text: str) -> str:
    """A pattern matching `text` case-insensitively with JavaScript's folding rules."""
    return "".join(ci_char(ch) for ch in text)
