"""The read and generic airline tools on the mini database, including their error paths."""

from __future__ import annotations

import json

import pytest

from bench_runner.benchmarks.tau_airline.db import BaseDatabase
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment
from bench_runner.benchmarks.tau_airline.tool_schemas import TOOL_ARGS

from .conftest import failed, ok


def unchanged(env: AirlineEnvironment, mini: BaseDatabase) -> bool:
    return env.db.state_hash() == mini.state_hash()


def test_there_are_fourteen_tools_in_tau2_order() -> None:
    assert list(TOOL_ARGS) == [
        "book_reservation",
        "calculate",
        "cancel_reservation",
        "get_reservation_details",
        "get_user_details",
        "list_all_airports",
        "search_direct_flight",
        "search_onestop_flight",
        "send_certificate",
        "transfer_to_human_agents",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
        "get_flight_status",
    ]


# -- reads -----------------------------------------------------------------------------------


def test_get_user_details_shows_the_user_in_model_order(env: AirlineEnvironment) -> None:
    outcome = env.call("get_user_details", {"user_id": "ann_gold_1"})
    user = ok(outcome)
    assert list(user) == [
        "user_id",
        "name",
        "address",
        "email",
        "dob",
        "payment_methods",
        "saved_passengers",
        "membership",
        "reservations",
    ]
    assert list(user["payment_methods"]["credit_card_1"]) == ["source", "id", "brand", "last_four"]
    assert user["payment_methods"]["gift_card_1"] == {
        "source": "gift_card",
        "id": "gift_card_1",
        "amount": 500.0,
    }
    assert '"amount": 500.0' in outcome.content  # floats stay floats, as τ² dumps them


def test_get_user_details_unknown_user(env: AirlineEnvironment) -> None:
    assert (
        failed(env.call("get_user_details", {"user_id": "nobody"}))
        == "Error: User nobody not found"
    )


def test_get_reservation_details_orders_flight_fields_and_shows_null_status(
    env: AirlineEnvironment,
) -> None:
    reservation = ok(env.call("get_reservation_details", {"reservation_id": "RES001"}))
    assert reservation["status"] is None
    assert list(reservation)[-1] == "status"
    assert list(reservation["flights"][0]) == [
        "flight_number",
        "origin",
        "destination",
        "date",
        "price",
    ]


def test_get_reservation_details_unknown(env: AirlineEnvironment) -> None:
    outcome = env.call("get_reservation_details", {"reservation_id": "NOPE01"})
    assert failed(outcome) == "Error: Reservation NOPE01 not found"


def test_list_all_airports(env: AirlineEnvironment) -> None:
    airports = ok(env.call("list_all_airports", {}))
    assert len(airports) == 20
    assert airports[0] == {"iata": "SFO", "city": "San Francisco"}
    assert airports[-1] == {"iata": "LGA", "city": "LaGuardia"}


def test_search_direct_flight_lists_available_flights_with_null_date(
    env: AirlineEnvironment,
) -> None:
    found = ok(
        env.call(
            "search_direct_flight", {"origin": "JFK", "destination": "LAX", "date": "2024-05-20"}
        )
    )
    assert [f["flight_number"] for f in found] == ["HAT100"]
    assert found[0] == {
        "flight_number": "HAT100",
        "origin": "JFK",
        "destination": "LAX",
        "status": "available",
        "scheduled_departure_time_est": "08:00:00",
        "scheduled_arrival_time_est": "11:00:00",
        "date": None,
        "available_seats": {"basic_economy": 5, "economy": 3, "business": 2},
        "prices": {"basic_economy": 100, "economy": 200, "business": 500},
    }


def test_search_direct_flight_skips_cancelled_and_missing_dates(env: AirlineEnvironment) -> None:
    args = {"origin": "JFK", "destination": "LAX"}
    assert ok(env.call("search_direct_flight", {**args, "date": "2024-05-21"})) == []
    assert ok(env.call("search_direct_flight", {**args, "date": "2024-06-01"})) == []


def test_search_onestop_flight_pairs_legs_with_dates(env: AirlineEnvironment) -> None:
    pairs = ok(
        env.call(
            "search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}
        )
    )
    assert [[leg["flight_number"] for leg in pair] for pair in pairs] == [["HAT100", "HAT200"]]
    assert [leg["date"] for leg in pairs[0]] == ["2024-05-20", "2024-05-20"]


def test_search_onestop_flight_overnight_leg_moves_to_next_day(env: AirlineEnvironment) -> None:
    pairs = ok(
        env.call(
            "search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-10"}
        )
    )
    assert [[leg["flight_number"] for leg in pair] for pair in pairs] == [["HAT300", "HAT400"]]
    assert pairs[0][1]["date"] == "2024-05-11"


def test_search_onestop_flight_keeps_tau2_unpadded_next_day(env: AirlineEnvironment) -> None:
    # τ² builds "2024-05-6" for the day after 2024-05-05, which matches no date key.
    pairs = ok(
        env.call(
            "search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-05"}
        )
    )
    assert pairs == []


def test_get_flight_status(env: AirlineEnvironment) -> None:
    status = env.call("get_flight_status", {"flight_number": "HAT100", "date": "2024-05-10"})
    assert status.content == "landed"
    assert (
        ok(env.call("get_flight_status", {"flight_number": "HAT200", "date": "2024-05-21"}))
        == "delayed"
    )


def test_get_flight_status_errors(env: AirlineEnvironment) -> None:
    unknown = env.call("get_flight_status", {"flight_number": "HAT999", "date": "2024-05-10"})
    assert failed(unknown) == "Error: Flight HAT999 not found"
    no_date = env.call("get_flight_status", {"flight_number": "HAT100", "date": "2024-06-10"})
    assert failed(no_date) == "Error: Flight HAT100 not found on date 2024-06-10"


# -- generic ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "result"),
    [
        ("2 * (3 + 4) / 3", "4.67"),
        ("10", "10.0"),
        ("1.5 + 1.5", "3.0"),
        ("-3 * 2", "-6.0"),
        ("2 ** 3", "8.0"),
    ],
)
def test_calculate(env: AirlineEnvironment, expression: str, result: str) -> None:
    assert ok(env.call("calculate", {"expression": expression})) == float(result)
    assert env.call("calculate", {"expression": expression}).content == result


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("2 + x", "Error: Invalid characters in expression"),
        ("__import__('os')", "Error: Invalid characters in expression"),
        ("1 / 0", "Error: division by zero"),
        ("1 +", "Error: invalid syntax (<string>, line 1)"),
        ("9 ** 99999999", "Error: exponent too large"),
    ],
)
def test_calculate_errors(env: AirlineEnvironment, expression: str, message: str) -> None:
    assert failed(env.call("calculate", {"expression": expression})) == message


def test_transfer_to_human_agents(env: AirlineEnvironment, mini: BaseDatabase) -> None:
    outcome = env.call("transfer_to_human_agents", {"summary": "wants a refund"})
    assert outcome.content == "Transfer successful"
    assert not outcome.error
    assert unchanged(env, mini)


def test_tool_results_serialise_like_tau2(env: AirlineEnvironment) -> None:
    outcome = env.call("get_reservation_details", {"reservation_id": "RES001"})
    assert outcome.content == json.dumps(json.loads(outcome.content))
    assert outcome.content.startswith('{"reservation_id": "RES001", "user_id": "ann_gold_1"')
