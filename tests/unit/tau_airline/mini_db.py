"""A hand-written airline database with the real shapes, small enough to reason about."""

from __future__ import annotations

from typing import Any

from bench_runner.benchmarks.tau_airline.db import BaseDatabase


def _available(seats: tuple[int, int, int], prices: tuple[int, int, int]) -> dict[str, Any]:
    cabins = ("basic_economy", "economy", "business")
    return {
        "status": "available",
        "available_seats": dict(zip(cabins, seats, strict=True)),
        "prices": dict(zip(cabins, prices, strict=True)),
    }


def _flight(number: str, origin: str, destination: str, times: tuple[str, str], dates: Any) -> Any:
    return {
        "origin": origin,
        "destination": destination,
        "flight_number": number,
        "scheduled_departure_time_est": times[0],
        "scheduled_arrival_time_est": times[1],
        "dates": dates,
    }


def mini_tables() -> dict[str, Any]:
    """Flights HAT100 JFK-LAX, HAT200 LAX-SEA, HAT300 JFK-LAX (arrives +1), HAT400 LAX-SEA;
    users ann_gold_1 (gift card 500, certificate 100, credit card) and bob_reg_2 (credit card);
    reservations RES001 (Ann, economy, insured) and RES002 (Bob, basic economy, 2 passengers)."""
    flights = {
        "HAT100": _flight(
            "HAT100",
            "JFK",
            "LAX",
            ("08:00:00", "11:00:00"),
            {
                "2024-05-10": {
                    "status": "landed",
                    "actual_departure_time_est": "2024-05-10T08:05:00",
                    "actual_arrival_time_est": "2024-05-10T11:02:00",
                },
                "2024-05-20": _available((5, 3, 2), (100, 200, 500)),
                "2024-05-21": {"status": "cancelled"},
                "2024-05-22": _available((5, 0, 2), (110, 210, 510)),
            },
        ),
        "HAT200": _flight(
            "HAT200",
            "LAX",
            "SEA",
            ("12:00:00", "14:00:00"),
            {
                "2024-05-20": _available((9, 9, 9), (50, 150, 400)),
                "2024-05-21": {
                    "status": "delayed",
                    "estimated_departure_time_est": "2024-05-21T13:00:00",
                    "estimated_arrival_time_est": "2024-05-21T15:00:00",
                },
            },
        ),
        "HAT300": _flight(
            "HAT300",
            "JFK",
            "LAX",
            ("22:00:00", "01:00:00+1"),
            {
                "2024-05-05": _available((4, 4, 4), (90, 190, 490)),
                "2024-05-10": _available((4, 4, 4), (90, 190, 490)),
            },
        ),
        "HAT400": _flight(
            "HAT400",
            "LAX",
            "SEA",
            ("03:00:00", "05:00:00"),
            {
                "2024-05-06": _available((6, 6, 6), (60, 160, 460)),
                "2024-05-11": _available((6, 6, 6), (60, 160, 460)),
            },
        ),
    }
    users = {
        "ann_gold_1": {
            "user_id": "ann_gold_1",
            "name": {"first_name": "Ann", "last_name": "Gold"},
            "address": {
                "address1": "1 Main St",
                "address2": "Apt 2",
                "city": "Austin",
                "country": "USA",
                "state": "TX",
                "zip": "78701",
            },
            "email": "ann@example.com",
            "dob": "1980-01-01",
            "payment_methods": {
                "gift_card_1": {"source": "gift_card", "id": "gift_card_1", "amount": 500.0},
                "certificate_1": {"source": "certificate", "id": "certificate_1", "amount": 100.0},
                "credit_card_1": {
                    "source": "credit_card",
                    "id": "credit_card_1",
                    "brand": "visa",
                    "last_four": "1111",
                },
            },
            "saved_passengers": [{"first_name": "Cy", "last_name": "Gold", "dob": "2010-02-02"}],
            "membership": "gold",
            "reservations": ["RES001"],
        },
        "bob_reg_2": {
            "user_id": "bob_reg_2",
            "name": {"first_name": "Bob", "last_name": "Reg"},
            "address": {
                "address1": "2 Side St",
                "address2": "",
                "city": "Boston",
                "country": "USA",
                "state": "MA",
                "zip": "02101",
            },
            "email": "bob@example.com",
            "dob": "1975-05-05",
            "payment_methods": {
                "credit_card_2": {
                    "source": "credit_card",
                    "id": "credit_card_2",
                    "brand": "mastercard",
                    "last_four": "2222",
                }
            },
            "saved_passengers": [],
            "membership": "regular",
            "reservations": ["RES002"],
        },
    }
    reservations = {
        "RES001": {
            "reservation_id": "RES001",
            "user_id": "ann_gold_1",
            "origin": "JFK",
            "destination": "LAX",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [
                {
                    "origin": "JFK",
                    "destination": "LAX",
                    "flight_number": "HAT100",
                    "date": "2024-05-20",
                    "price": 200,
                }
            ],
            "passengers": [{"first_name": "Ann", "last_name": "Gold", "dob": "1980-01-01"}],
            "payment_history": [{"payment_id": "credit_card_1", "amount": 230}],
            "created_at": "2024-05-14T10:00:00",
            "total_baggages": 1,
            "nonfree_baggages": 0,
            "insurance": "yes",
        },
        "RES002": {
            "reservation_id": "RES002",
            "user_id": "bob_reg_2",
            "origin": "JFK",
            "destination": "SEA",
            "flight_type": "one_way",
            "cabin": "basic_economy",
            "flights": [
                {
                    "origin": "JFK",
                    "destination": "LAX",
                    "flight_number": "HAT100",
                    "date": "2024-05-20",
                    "price": 100,
                },
                {
                    "origin": "LAX",
                    "destination": "SEA",
                    "flight_number": "HAT200",
                    "date": "2024-05-20",
                    "price": 50,
                },
            ],
            "passengers": [
                {"first_name": "Bob", "last_name": "Reg", "dob": "1975-05-05"},
                {"first_name": "Eve", "last_name": "Reg", "dob": "1977-07-07"},
            ],
            "payment_history": [{"payment_id": "credit_card_2", "amount": 300}],
            "created_at": "2024-05-01T09:00:00",
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    }
    return {"flights": flights, "users": users, "reservations": reservations}


def mini_database() -> BaseDatabase:
    return BaseDatabase.from_json(mini_tables())
