"""The airline environment: turns one tool call into one observation, never into an exception.

A call goes: parse the JSON arguments, refuse unknown tools and unknown arguments, validate
the rest against the tool's argument model, run the tool on this evaluation's database, and
serialise the result as τ² does (`json.dumps` of the dumped model; strings as they are).
Anything that fails becomes an observation starting "Error: " with `error` set, as τ²'s
`Environment.get_response` does for every exception a tool raises.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from bench_runner.benchmarks.tau_airline.db import AirlineDB
from bench_runner.benchmarks.tau_airline.tool_schemas import TOOL_ARGS, BookReservationArgs
from bench_runner.benchmarks.tau_airline.tools import AirlineTools


@dataclass(frozen=True)
class ToolOutcome:
    """What the agent sees after a tool call, and whether it counts as a tool error."""

    content: str
    error: bool


class AirlineEnvironment:
    """The 14 tools over one evaluation's database."""

    def __init__(self, db: AirlineDB) -> None:
        self.db = db
        self._tools = AirlineTools(db)

    def execute(self, name: str, arguments: str) -> ToolOutcome:
        """Run a call whose arguments are the raw JSON text the model produced."""
        parsed = parse_arguments(arguments)
        if isinstance(parsed, str):
            return _error(f"invalid JSON arguments for {name}: {parsed}")
        return self.call(name, parsed)

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        """Run a call with parsed arguments (the agent's, or a gold action's)."""
        entry = TOOL_ARGS.get(name)
        if entry is None:
            return _error(f"Tool '{name}' not found.")
        model = entry[0]
        unexpected = sorted(set(arguments) - set(model.model_fields))
        if unexpected:
            return _error(f"{name}() got an unexpected keyword argument '{unexpected[0]}'")
        try:
            args = model.model_validate(dict(arguments))
        except ValidationError as error:
            return _error(f"invalid arguments for {name}: {describe_validation(error)}")
        try:
            result = self._dispatch(name, args)
        except Exception as error:  # τ² turns every tool exception into an observation
            return _error(str(error))
        return ToolOutcome(result if isinstance(result, str) else json.dumps(result), False)

    def _dispatch(self, name: str, args: BaseModel) -> Any:
        if isinstance(args, BookReservationArgs):
            return self._tools.book_reservation(args)
        method = getattr(self._tools, name)
        return method(**{field: getattr(args, field) for field in type(args).model_fields})


def parse_arguments(arguments: str) -> dict[str, Any] | str:
    """The arguments object, or a description of why the text is not one.

    An empty string means no arguments (some providers send "" for argument-less tools).
    """
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError as error:
        return str(error)
    if not isinstance(value, dict):
        return f"expected a JSON object, got {type(value).__name__}"
    return value


def describe_validation(error: ValidationError) -> str:
    """One line per problem: `field.path: message`."""
    return "; ".join(
        f"{'.'.join(str(part) for part in problem['loc']) or 'arguments'}: {problem['msg']}"
        for problem in error.errors()
    )


def _error(message: str) -> ToolOutcome:
    return ToolOutcome(f"Error: {message}", True)
