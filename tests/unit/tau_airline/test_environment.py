"""Bad tool calls become error observations, never exceptions; schemas match the arguments."""

from __future__ import annotations

import pytest

from bench_runner.benchmarks.tau_airline.db import BaseDatabase
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment
from bench_runner.benchmarks.tau_airline.tool_schemas import TOOL_ARGS, TOOL_SCHEMAS

from .conftest import failed, loose, ok


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        (
            "get_user_details",
            '{"user_id": ',
            "Error: invalid JSON arguments for get_user_details: ",
        ),
        (
            "get_user_details",
            "[1, 2]",
            "Error: invalid JSON arguments for get_user_details: expected a JSON object",
        ),
        (
            "get_user_details",
            "{}",
            "Error: invalid arguments for get_user_details: user_id: Field required",
        ),
        (
            "get_user_details",
            '{"user_id": 42}',
            "Error: invalid arguments for get_user_details: user_id: Input should be a valid",
        ),
        (
            "get_user_details",
            '{"user_id": "ann_gold_1", "verbose": true}',
            "Error: get_user_details() got an unexpected keyword argument 'verbose'",
        ),
        (
            "update_reservation_baggages",
            '{"reservation_id": "RES001", "total_baggages": "many", "nonfree_baggages": 0, '
            '"payment_id": "x"}',
            "Error: invalid arguments for update_reservation_baggages: total_baggages:",
        ),
        (
            "book_reservation",
            '{"user_id": "ann_gold_1"}',
            "Error: invalid arguments for book_reservation: origin: Field required;",
        ),
        ("cancel_all_flights", "{}", "Error: Tool 'cancel_all_flights' not found."),
    ],
)
def test_bad_calls_become_error_observations(
    env: AirlineEnvironment, mini: BaseDatabase, name: str, arguments: str, message: str
) -> None:
    outcome = env.execute(name, arguments)
    assert failed(outcome).startswith(message)
    assert env.db.state_hash() == mini.state_hash()


def test_empty_argument_text_means_no_arguments(env: AirlineEnvironment) -> None:
    assert len(ok(env.execute("list_all_airports", ""))) == 20


def test_numbers_in_integer_fields_are_coerced_like_pydantic_models_in_tau2(
    env: AirlineEnvironment,
) -> None:
    outcome = env.execute(
        "update_reservation_baggages",
        '{"reservation_id": "RES001", "total_baggages": 2.0, "nonfree_baggages": 1, '
        '"payment_id": "credit_card_1"}',
    )
    reservation = ok(outcome)
    assert reservation["total_baggages"] == 2
    assert '"total_baggages": 2,' in outcome.content


def test_schemas_are_openai_function_tools_built_from_the_argument_models() -> None:
    assert [loose(s)["function"]["name"] for s in TOOL_SCHEMAS] == list(TOOL_ARGS)
    for schema in TOOL_SCHEMAS:
        assert schema["type"] == "function"
        function = schema["function"]
        assert isinstance(function, dict)
        parameters = function["parameters"]
        assert isinstance(parameters, dict)
        assert parameters["type"] == "object"
        assert isinstance(function["description"], str)
        assert function["description"]
    book = next(s for s in TOOL_SCHEMAS if loose(s)["function"]["name"] == "book_reservation")
    parameters = loose(book)["function"]["parameters"]
    assert parameters["properties"]["cabin"]["enum"] == ["business", "economy", "basic_economy"]
    assert set(parameters["required"]) == set(TOOL_ARGS["book_reservation"][0].model_fields)
