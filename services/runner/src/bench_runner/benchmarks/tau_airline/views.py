"""What the tools show the agent: database records in τ²'s model field order.

τ² returns pydantic models and the environment serialises `model_dump()` with `json.dumps`, so
keys follow the model's field order and optional fields appear as null (a reservation's
`status`, a direct flight's `date`). The stored records keep `db.json`'s order, which differs
for flights, so every record the agent sees goes through one of these functions.
"""

from __future__ import annotations

from typing import Any

from bench_runner.benchmarks.tau_airline.db import Record

_PASSENGER = ("first_name", "last_name", "dob")
_PAYMENT = ("payment_id", "amount")
_RESERVATION_FLIGHT = ("flight_number", "origin", "destination", "date", "price")
_ADDRESS = ("address1", "address2", "city", "country", "state", "zip")
_PAYMENT_METHOD = {
    "credit_card": ("source", "id", "brand", "last_four"),
    "gift_card": ("source", "id", "amount"),
    "certificate": ("source", "id", "amount"),
}


def _pick(record: Record, keys: tuple[str, ...]) -> Record:
    return {key: record.get(key) for key in keys}


def passenger_view(passenger: Record) -> Record:
    return _pick(passenger, _PASSENGER)


def payment_method_view(method: Record) -> Record:
    return _pick(method, _PAYMENT_METHOD.get(method.get("source", ""), tuple(method)))


def user_view(user: Record) -> Record:
    """A `User` as τ² dumps it."""
    return {
        "user_id": user["user_id"],
        "name": _pick(user["name"], ("first_name", "last_name")),
        "address": _pick(user["address"], _ADDRESS),
        "email": user["email"],
        "dob": user["dob"],
        "payment_methods": {
            key: payment_method_view(method) for key, method in user["payment_methods"].items()
        },
        "saved_passengers": [passenger_view(p) for p in user["saved_passengers"]],
        "membership": user["membership"],
        "reservations": list(user["reservations"]),
    }


def reservation_view(reservation: Record) -> Record:
    """A `Reservation` as τ² dumps it (`status` null unless cancelled)."""
    return {
        "reservation_id": reservation["reservation_id"],
        "user_id": reservation["user_id"],
        "origin": reservation["origin"],
        "destination": reservation["destination"],
        "flight_type": reservation["flight_type"],
        "cabin": reservation["cabin"],
        "flights": [_pick(f, _RESERVATION_FLIGHT) for f in reservation["flights"]],
        "passengers": [passenger_view(p) for p in reservation["passengers"]],
        "payment_history": [_pick(p, _PAYMENT) for p in reservation["payment_history"]],
        "created_at": reservation["created_at"],
        "total_baggages": reservation["total_baggages"],
        "nonfree_baggages": reservation["nonfree_baggages"],
        "insurance": reservation["insurance"],
        "status": reservation.get("status"),
    }


def direct_flight_view(flight: Record, day: Record, date: str | None = None) -> Record:
    """A `DirectFlight`: an available flight on one date (`date` null in direct searches)."""
    return {
        "flight_number": flight["flight_number"],
        "origin": flight["origin"],
        "destination": flight["destination"],
        "status": "available",
        "scheduled_departure_time_est": flight["scheduled_departure_time_est"],
        "scheduled_arrival_time_est": flight["scheduled_arrival_time_est"],
        "date": date,
        "available_seats": dict(day["available_seats"]),
        "prices": dict(day["prices"]),
    }


def airport_view(iata: str, city: str) -> dict[str, Any]:
    return {"iata": iata, "city": city}
