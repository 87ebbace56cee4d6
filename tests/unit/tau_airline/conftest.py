from __future__ import annotations

import json
from typing import Any

import pytest

from bench_runner.benchmarks.tau_airline.data import AirlineBundle, load_bundle
from bench_runner.benchmarks.tau_airline.db import AirlineDB, BaseDatabase, Record
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment, ToolOutcome

from .mini_db import mini_database


@pytest.fixture(scope="session")
def bundle() -> AirlineBundle:
    return load_bundle()


@pytest.fixture
def mini() -> BaseDatabase:
    return mini_database()


@pytest.fixture
def env(mini: BaseDatabase) -> AirlineEnvironment:
    return AirlineEnvironment(mini.fresh())


def stored(db: AirlineDB, table: str, key: str) -> Record:
    """A record that must exist."""
    found = db.get(table, key)
    assert found is not None, f"{table}/{key} missing"
    return found


def loose(value: object) -> Any:
    """A JSON value from a record or schema, typed loosely for assertions."""
    return value


def ok(outcome: ToolOutcome) -> Any:
    """The parsed result of a successful call (strings stay strings)."""
    assert not outcome.error, outcome.content
    try:
        return json.loads(outcome.content)
    except json.JSONDecodeError:
        return outcome.content


def failed(outcome: ToolOutcome) -> str:
    assert outcome.error, outcome.content
    return outcome.content
