"""The write tools on the mini database: effects, τ² quirks, error paths that change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from bench_runner.benchmarks.tau_airline.db import BaseDatabase
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment

from .conftest import failed, ok, stored

ANN_PASSENGER = {"first_name": "Ann", "last_name": "Gold", "dob": "1980-01-01"}


def book_args(**overrides: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "user_id": "ann_gold_1",
        "origin": "JFK",
        "destination": "SEA",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [
            {"flight_number": "HAT100", "date": "2024-05-20"},
            {"flight_number": "HAT200", "date": "2024-05-20"},
        ],
        "passengers": [ANN_PASSENGER],
        "payment_methods": [{"payment_id": "credit_card_1", "amount": 200 + 150 + 30 + 50}],
        "total_baggages": 2,
        "nonfree_baggages": 1,
        "insurance": "yes",
    }
    args.update(overrides)
    return args


def unchanged(env: AirlineEnvironment, mini: BaseDatabase) -> bool:
    return env.db.state_hash() == mini.state_hash()


# -- book_reservation ------------------------------------------------------------------------


def test_book_reservation_creates_hathat_and_updates_seats_and_user(
    env: AirlineEnvironment, mini: BaseDatabase
) -> None:
    reservation = ok(env.call("book_reservation", book_args()))
    assert reservation["reservation_id"] == "HATHAT"
    assert reservation["created_at"] == "2024-05-15T15:00:00"
    assert reservation["status"] is None
    assert [f["price"] for f in reservation["flights"]] == [200, 150]
    assert reservation["payment_history"] == [{"payment_id": "credit_card_1", "amount": 430}]
    db = env.db
    assert stored(db, "users", "ann_gold_1")["reservations"] == ["RES001", "HATHAT"]
    assert stored(db, "flights", "HAT100")["dates"]["2024-05-20"]["available_seats"]["economy"] == 2
    assert stored(db, "flights", "HAT200")["dates"]["2024-05-20"]["available_seats"]["economy"] == 8
    # the shared database is untouched
    assert (
        mini.tables["flights"]["HAT100"]["dates"]["2024-05-20"]["available_seats"]["economy"] == 3
    )
    assert mini.tables["users"]["ann_gold_1"]["reservations"] == ["RES001"]


def test_book_reservation_ids_follow_hathat_hathau_hathav_then_refuse(
    env: AirlineEnvironment,
) -> None:
    one_leg = book_args(
        flights=[{"flight_number": "HAT200", "date": "2024-05-20"}],
        payment_methods=[{"payment_id": "credit_card_1", "amount": 150}],
        nonfree_baggages=0,
        insurance="no",
    )
    ids = [ok(env.call("book_reservation", one_leg))["reservation_id"] for _ in range(3)]
    assert ids == ["HATHAT", "HATHAU", "HATHAV"]
    assert failed(env.call("book_reservation", one_leg)) == "Error: Too many reservations"


def test_book_reservation_spends_gift_card_and_consumes_certificate(
    env: AirlineEnvironment,
) -> None:
    args = book_args(
        payment_methods=[
            {"payment_id": "certificate_1", "amount": 100},
            {"payment_id": "gift_card_1", "amount": 330},
        ]
    )
    ok(env.call("book_reservation", args))
    methods = stored(env.db, "users", "ann_gold_1")["payment_methods"]
    assert "certificate_1" not in methods
    assert methods["gift_card_1"]["amount"] == 170.0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"user_id": "nobody"}, "Error: User nobody not found"),
        (
            {"flights": [{"flight_number": "HAT999", "date": "2024-05-20"}]},
            "Error: Flight HAT999 not found",
        ),
        (
            {"flights": [{"flight_number": "HAT100", "date": "2024-06-20"}]},
            "Error: Flight HAT100 not found on date 2024-06-20",
        ),
        (
            {"flights": [{"flight_number": "HAT100", "date": "2024-05-10"}]},
            "Error: Flight HAT100 not available on date 2024-05-10",
        ),
        (
            {"flights": [{"flight_number": "HAT100", "date": "2024-05-22"}]},
            "Error: Not enough seats on flight HAT100",
        ),
        (
            {"payment_methods": [{"payment_id": "credit_card_9", "amount": 430}]},
            "Error: Payment method credit_card_9 not found",
        ),
        (
            {"payment_methods": [{"payment_id": "certificate_1", "amount": 430}]},
            "Error: Not enough balance in payment method certificate_1",
        ),
        (
            {"payment_methods": [{"payment_id": "credit_card_1", "amount": 400}]},
            "Error: Payment amount does not add up, total price is 430, but paid 400",
        ),
    ],
)
def test_book_reservation_errors_leave_the_database_unchanged(
    env: AirlineEnvironment, mini: BaseDatabase, overrides: dict[str, Any], message: str
) -> None:
    assert failed(env.call("book_reservation", book_args(**overrides))) == message
    assert unchanged(env, mini)


def test_book_reservation_refuses_bad_enums(env: AirlineEnvironment, mini: BaseDatabase) -> None:
    outcome = env.call("book_reservation", book_args(cabin="first"))
    assert failed(outcome).startswith("Error: invalid arguments for book_reservation: cabin:")
    assert unchanged(env, mini)


# -- cancel_reservation ----------------------------------------------------------------------


def test_cancel_reservation_refunds_every_payment_and_keeps_seats(
    env: AirlineEnvironment, mini: BaseDatabase
) -> None:
    reservation = ok(env.call("cancel_reservation", {"reservation_id": "RES002"}))
    assert reservation["status"] == "cancelled"
    assert reservation["payment_history"] == [
        {"payment_id": "credit_card_2", "amount": 300},
        {"payment_id": "credit_card_2", "amount": -300},
    ]
    assert env.db.changed_keys("flights") == []
    assert "status" not in mini.tables["reservations"]["RES002"]


def test_cancel_reservation_twice_refunds_again_as_tau2_does(env: AirlineEnvironment) -> None:
    ok(env.call("cancel_reservation", {"reservation_id": "RES001"}))
    again = ok(env.call("cancel_reservation", {"reservation_id": "RES001"}))
    assert [p["amount"] for p in again["payment_history"]] == [230, -230, -230, 230]


def test_cancel_reservation_unknown(env: AirlineEnvironment) -> None:
    outcome = env.call("cancel_reservation", {"reservation_id": "XXXXXX"})
    assert failed(outcome) == "Error: Reservation XXXXXX not found"


# -- update_reservation_baggages -------------------------------------------------------------


def test_update_baggages_charges_fifty_per_extra_nonfree_bag(env: AirlineEnvironment) -> None:
    args = {
        "reservation_id": "RES001",
        "total_baggages": 3,
        "nonfree_baggages": 2,
        "payment_id": "credit_card_1",
    }
    reservation = ok(env.call("update_reservation_baggages", args))
    assert (reservation["total_baggages"], reservation["nonfree_baggages"]) == (3, 2)
    assert reservation["payment_history"][-1] == {"payment_id": "credit_card_1", "amount": 100}


def test_update_baggages_from_gift_card_deducts_balance(env: AirlineEnvironment) -> None:
    args = {
        "reservation_id": "RES001",
        "total_baggages": 2,
        "nonfree_baggages": 1,
        "payment_id": "gift_card_1",
    }
    ok(env.call("update_reservation_baggages", args))
    assert (
        stored(env.db, "users", "ann_gold_1")["payment_methods"]["gift_card_1"]["amount"] == 450.0
    )


def test_update_baggages_without_charge_adds_no_payment(env: AirlineEnvironment) -> None:
    args = {
        "reservation_id": "RES001",
        "total_baggages": 2,
        "nonfree_baggages": 0,
        "payment_id": "certificate_9",
    }
    assert (
        failed(env.call("update_reservation_baggages", args)) == "Error: Payment method not found"
    )
    args["payment_id"] = "gift_card_1"
    reservation = ok(env.call("update_reservation_baggages", args))
    assert reservation["payment_history"] == [{"payment_id": "credit_card_1", "amount": 230}]
    assert reservation["total_baggages"] == 2


@pytest.mark.parametrize(
    ("payment_id", "nonfree", "message"),
    [
        ("certificate_1", 1, "Error: Certificate cannot be used to update reservation"),
        ("gift_card_1", 11, "Error: Gift card balance is not enough"),
        ("credit_card_2", 1, "Error: Payment method not found"),
    ],
)
def test_update_baggages_payment_errors(
    env: AirlineEnvironment, mini: BaseDatabase, payment_id: str, nonfree: int, message: str
) -> None:
    args = {
        "reservation_id": "RES001",
        "total_baggages": nonfree,
        "nonfree_baggages": nonfree,
        "payment_id": payment_id,
    }
    assert failed(env.call("update_reservation_baggages", args)) == message
    assert unchanged(env, mini)


def test_update_baggages_unknown_reservation(env: AirlineEnvironment) -> None:
    args = {
        "reservation_id": "NOPE",
        "total_baggages": 1,
        "nonfree_baggages": 0,
        "payment_id": "credit_card_1",
    }
    assert (
        failed(env.call("update_reservation_baggages", args)) == "Error: Reservation NOPE not found"
    )


# -- update_reservation_flights --------------------------------------------------------------


def flights_args(**overrides: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "reservation_id": "RES001",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT300", "date": "2024-05-10"}],
        "payment_id": "credit_card_1",
    }
    args.update(overrides)
    return args


def test_update_flights_replaces_itinerary_and_charges_the_difference(
    env: AirlineEnvironment,
) -> None:
    reservation = ok(env.call("update_reservation_flights", flights_args()))
    assert reservation["flights"] == [
        {
            "flight_number": "HAT300",
            "origin": "JFK",
            "destination": "LAX",
            "date": "2024-05-10",
            "price": 190,
        }
    ]
    assert reservation["payment_history"][-1] == {"payment_id": "credit_card_1", "amount": -10}
    assert env.db.changed_keys("flights") == []  # τ² changes no seat counts on updates


def test_update_flights_keeping_the_same_flights_costs_nothing(env: AirlineEnvironment) -> None:
    same = flights_args(flights=[{"flight_number": "HAT100", "date": "2024-05-20"}])
    reservation = ok(env.call("update_reservation_flights", same))
    assert reservation["payment_history"] == [{"payment_id": "credit_card_1", "amount": 230}]


def test_update_flights_cabin_change_reprices_kept_flights(env: AirlineEnvironment) -> None:
    upgrade = flights_args(
        cabin="business", flights=[{"flight_number": "HAT100", "date": "2024-05-20"}]
    )
    reservation = ok(env.call("update_reservation_flights", upgrade))
    assert reservation["cabin"] == "business"
    assert reservation["payment_history"][-1] == {"payment_id": "credit_card_1", "amount": 300}


def test_update_flights_refund_to_gift_card_raises_its_balance(env: AirlineEnvironment) -> None:
    ok(env.call("update_reservation_flights", flights_args(payment_id="gift_card_1")))
    assert (
        stored(env.db, "users", "ann_gold_1")["payment_methods"]["gift_card_1"]["amount"] == 510.0
    )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"reservation_id": "NOPE"}, "Error: Reservation NOPE not found"),
        (
            {"flights": [{"flight_number": "HAT999", "date": "2024-05-20"}]},
            "Error: Flight HAT999 not found",
        ),
        (
            {"flights": [{"flight_number": "HAT100", "date": "2024-05-21"}]},
            "Error: Flight HAT100 not available on date 2024-05-21",
        ),
        (
            {"flights": [{"flight_number": "HAT100", "date": "2024-05-22"}]},
            "Error: Not enough seats on flight HAT100",
        ),
        (
            {"payment_id": "certificate_1"},
            "Error: Certificate cannot be used to update reservation",
        ),
    ],
)
def test_update_flights_errors(
    env: AirlineEnvironment, mini: BaseDatabase, overrides: dict[str, Any], message: str
) -> None:
    assert failed(env.call("update_reservation_flights", flights_args(**overrides))) == message
    assert unchanged(env, mini)


# -- update_reservation_passengers -----------------------------------------------------------


def test_update_passengers(env: AirlineEnvironment) -> None:
    new = [{"first_name": "Zed", "last_name": "Reg", "dob": "1990-09-09"}, ANN_PASSENGER]
    reservation = ok(
        env.call("update_reservation_passengers", {"reservation_id": "RES002", "passengers": new})
    )
    assert reservation["passengers"] == new


def test_update_passengers_count_must_match(env: AirlineEnvironment, mini: BaseDatabase) -> None:
    outcome = env.call(
        "update_reservation_passengers", {"reservation_id": "RES002", "passengers": [ANN_PASSENGER]}
    )
    assert failed(outcome) == "Error: Number of passengers does not match"
    assert unchanged(env, mini)


# -- send_certificate ------------------------------------------------------------------------


def test_send_certificate_adds_numbered_certificates(env: AirlineEnvironment) -> None:
    first = env.call("send_certificate", {"user_id": "bob_reg_2", "amount": 150})
    assert (
        first.content == "Certificate certificate_3221322 added to user bob_reg_2 with amount 150."
    )
    second = env.call("send_certificate", {"user_id": "bob_reg_2", "amount": 50})
    assert "certificate_3221323" in second.content
    methods = stored(env.db, "users", "bob_reg_2")["payment_methods"]
    assert methods["certificate_3221322"] == {
        "source": "certificate",
        "id": "certificate_3221322",
        "amount": 150.0,
    }
    ok(env.call("send_certificate", {"user_id": "bob_reg_2", "amount": 10}))
    assert (
        failed(env.call("send_certificate", {"user_id": "bob_reg_2", "amount": 10}))
        == "Error: Too many certificates"
    )


def test_send_certificate_unknown_user(env: AirlineEnvironment) -> None:
    assert (
        failed(env.call("send_certificate", {"user_id": "ghost", "amount": 10}))
        == "Error: User ghost not found"
    )
