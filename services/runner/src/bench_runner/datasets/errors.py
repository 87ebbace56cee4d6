"""Errors raised while loading a dataset."""

from __future__ import annotations


class DatasetError(Exception):
    """A dataset could not be loaded or is malformed; the message says what to do about it."""
