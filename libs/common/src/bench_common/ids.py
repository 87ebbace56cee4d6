"""Identifiers: run ids, event ids, request ids."""

from __future__ import annotations

import re
import uuid

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def new_id() -> str:
    """A fresh random UUID4 in its canonical text form."""
    return str(uuid.uuid4())


def validate_session_id(value: str) -> str:
    """Check a caller-supplied run/session id: non-empty, at most 128 chars, no control chars.

    Raises:
        ValueError: with a message that says what is wrong with the id.
    """
    if not value or len(value) > 128:
        raise ValueError("session id must be 1 to 128 characters")
    if _CONTROL.search(value):
        raise ValueError("session id must not contain control characters")
    if "/" in value or value in {".", ".."}:
        raise ValueError("session id must not contain '/' or be '.' or '..'")
    return value
