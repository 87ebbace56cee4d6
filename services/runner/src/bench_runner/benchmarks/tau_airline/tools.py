"""The 14 airline tools, executed on one evaluation's database, faithful to τ²'s `AirlineTools`.

Semantics that decide the DB reward are τ²'s, quirks included: "now" is 2024-05-15T15:00:00;
new reservations take the first free id of HATHAT, HATHAU, HATHAV; certificates the first free
of certificate_3221322…3221324; cancelling refunds every payment but releases no seats; flight
updates take payment through `_payment_for_update` and change no seat counts; the one-stop
search builds the second leg's date as `2024-05-{day + 1}` (no zero padding). Every check runs
before the first write, so a failed call leaves the database unchanged. Failures raise
`ToolError` with τ²'s message; the environment turns them into "Error: …" observations.
"""

from __future__ import annotations

from typing import Any

from bench_runner.benchmarks.tau_airline import views
from bench_runner.benchmarks.tau_airline.calculator import evaluate_expression
from bench_runner.benchmarks.tau_airline.db import AirlineDB, Record
from bench_runner.benchmarks.tau_airline.tool_schemas import (
    BookReservationArgs,
    FlightInfo,
    Passenger,
)

NOW = "2024-05-15T15:00:00"
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
NEW_CERTIFICATE_IDS = tuple(f"certificate_{n}" for n in (3221322, 3221323, 3221324))
AIRPORTS = (
    ("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"), ("ORD", "Chicago"),
    ("DFW", "Dallas"), ("DEN", "Denver"), ("SEA", "Seattle"), ("ATL", "Atlanta"),
    ("MIA", "Miami"), ("BOS", "Boston"), ("PHX", "Phoenix"), ("IAH", "Houston"),
    ("LAS", "Las Vegas"), ("MCO", "Orlando"), ("EWR", "Newark"), ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"), ("DTW", "Detroit"), ("PHL", "Philadelphia"), ("LGA", "LaGuardia"),
)  # fmt: skip


class ToolError(ValueError):
    """A tool refused the call; the message is what the agent sees after "Error: "."""


class AirlineTools:
    """The tools bound to one evaluation's database."""

    def __init__(self, db: AirlineDB) -> None:
        self.db = db

    # -- lookups ---------------------------------------------------------------------------

    def _user(self, user_id: str) -> Record:
        user = self.db.get("users", user_id)
        if user is None:
            raise ToolError(f"User {user_id} not found")
        return user

    def _reservation(self, reservation_id: str) -> Record:
        reservation = self.db.get("reservations", reservation_id)
        if reservation is None:
            raise ToolError(f"Reservation {reservation_id} not found")
        return reservation

    def _flight(self, flight_number: str) -> Record:
        flight = self.db.get("flights", flight_number)
        if flight is None:
            raise ToolError(f"Flight {flight_number} not found")
        return flight

    def _flight_day(self, flight_number: str, date: str) -> Record:
        day: Record | None = self._flight(flight_number)["dates"].get(date)
        if day is None:
            raise ToolError(f"Flight {flight_number} not found on date {date}")
        return day

    def _available_day(self, info: FlightInfo, seats_needed: int, cabin: str) -> Record:
        day = self._flight_day(info.flight_number, info.date)
        if day["status"] != "available":
            raise ToolError(f"Flight {info.flight_number} not available on date {info.date}")
        if day["available_seats"][cabin] < seats_needed:
            raise ToolError(f"Not enough seats on flight {info.flight_number}")
        return day

    def _search(
        self, date: str, origin: str | None, destination: str | None, leave_after: str | None
    ) -> list[tuple[Record, Record]]:
        found = []
        for flight in self.db.values("flights"):
            day = flight["dates"].get(date)
            if (
                (origin is None or flight["origin"] == origin)
                and (destination is None or flight["destination"] == destination)
                and day is not None
                and day["status"] == "available"
                and (leave_after is None or flight["scheduled_departure_time_est"] >= leave_after)
            ):
                found.append((flight, day))
        return found

    # -- read tools ------------------------------------------------------------------------

    def get_user_details(self, user_id: str) -> Record:
        return views.user_view(self._user(user_id))

    def get_reservation_details(self, reservation_id: str) -> Record:
        return views.reservation_view(self._reservation(reservation_id))

    def list_all_airports(self) -> list[dict[str, Any]]:
        return [views.airport_view(iata, city) for iata, city in AIRPORTS]

    def search_direct_flight(self, origin: str, destination: str, date: str) -> list[Record]:
        found = self._search(date, origin, destination, None)
        return [views.direct_flight_view(flight, day) for flight, day in found]

    def search_onestop_flight(self, origin: str, destination: str, date: str) -> list[list[Record]]:
        pairs = []
        for first, first_day in self._search(date, origin, None, None):
            arrival = first["scheduled_arrival_time_est"]
            date2 = f"2024-05-{int(date[-2:]) + 1}" if "+1" in arrival else date
            first_view = views.direct_flight_view(first, first_day, date)
            for second, second_day in self._search(
                date2, first["destination"], destination, arrival
            ):
                pairs.append([first_view, views.direct_flight_view(second, second_day, date2)])
        return pairs

    def get_flight_status(self, flight_number: str, date: str) -> str:
        status: str = self._flight_day(flight_number, date)["status"]
        return status

    # -- generic tools ---------------------------------------------------------------------

    def calculate(self, expression: str) -> str:
        if not all(char in "0123456789+-*/(). " for char in expression):
            raise ToolError("Invalid characters in expression")
        return str(round(evaluate_expression(expression), 2))

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    # -- write tools -----------------------------------------------------------------------

    def book_reservation(self, args: BookReservationArgs) -> Record:
        user = self._user(args.user_id)
        reservation_id = next(
            (rid for rid in NEW_RESERVATION_IDS if not self.db.has("reservations", rid)), None
        )
        if reservation_id is None:
            raise ToolError("Too many reservations")
        seats = len(args.passengers)
        legs: list[Record] = []
        total_price = 0
        for info in args.flights:
            flight = self._flight(info.flight_number)
            price = self._available_day(info, seats, args.cabin)["prices"][args.cabin]
            legs.append(_leg(flight, info, price))
            total_price += price * seats
        if args.insurance == "yes":
            total_price += 30 * seats
        total_price += 50 * args.nonfree_baggages
        for payment in args.payment_methods:
            method = user["payment_methods"].get(payment.payment_id)
            if method is None:
                raise ToolError(f"Payment method {payment.payment_id} not found")
            if (
                method["source"] in {"gift_card", "certificate"}
                and method["amount"] < payment.amount
            ):
                raise ToolError(f"Not enough balance in payment method {payment.payment_id}")
        paid = sum(payment.amount for payment in args.payment_methods)
        if paid != total_price:
            raise ToolError(
                f"Payment amount does not add up, total price is {total_price}, but paid {paid}"
            )
        user = self.db.writable("users", args.user_id)
        for payment in args.payment_methods:
            method = user["payment_methods"][payment.payment_id]
            if method["source"] == "gift_card":
                method["amount"] -= payment.amount
            elif method["source"] == "certificate":
                user["payment_methods"].pop(payment.payment_id)
        for info in args.flights:
            day = self.db.writable("flights", info.flight_number)["dates"][info.date]
            day["available_seats"][args.cabin] -= seats
        reservation = {
            "reservation_id": reservation_id,
            "user_id": args.user_id,
            "origin": args.origin,
            "destination": args.destination,
            "flight_type": args.flight_type,
            "cabin": args.cabin,
            "flights": legs,
            "passengers": [p.model_dump() for p in args.passengers],
            "payment_history": [p.model_dump() for p in args.payment_methods],
            "created_at": NOW,
            "total_baggages": args.total_baggages,
            "nonfree_baggages": args.nonfree_baggages,
            "insurance": args.insurance,
        }
        self.db.insert("reservations", reservation_id, reservation)
        user["reservations"].append(reservation_id)
        return views.reservation_view(reservation)

    def cancel_reservation(self, reservation_id: str) -> Record:
        self._reservation(reservation_id)
        reservation = self.db.writable("reservations", reservation_id)
        history = reservation["payment_history"]
        history.extend([{"payment_id": p["payment_id"], "amount": -p["amount"]} for p in history])
        reservation["status"] = "cancelled"
        return views.reservation_view(reservation)

    def update_reservation_baggages(
        self, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
    ) -> Record:
        reservation = self._reservation(reservation_id)
        user = self._user(reservation["user_id"])
        total_price = 50 * max(0, nonfree_baggages - reservation["nonfree_baggages"])
        payment = self._payment_for_update(user, reservation["user_id"], payment_id, total_price)
        reservation = self.db.writable("reservations", reservation_id)
        if payment is not None:
            reservation["payment_history"].append(payment)
        reservation["total_baggages"] = total_baggages
        reservation["nonfree_baggages"] = nonfree_baggages
        return views.reservation_view(reservation)

    def update_reservation_flights(
        self, reservation_id: str, cabin: str, flights: list[FlightInfo], payment_id: str
    ) -> Record:
        reservation = self._reservation(reservation_id)
        user = self._user(reservation["user_id"])
        seats = len(reservation["passengers"])
        legs: list[Record] = []
        total_price = 0
        for info in flights:
            kept = next(
                (
                    leg
                    for leg in reservation["flights"]
                    if leg["flight_number"] == info.flight_number
                    and leg["date"] == info.date
                    and cabin == reservation["cabin"]
                ),
                None,
            )
            if kept is not None:
                legs.append(dict(kept))
                total_price += kept["price"] * seats
                continue
            flight = self._flight(info.flight_number)
            price = self._available_day(info, seats, cabin)["prices"][cabin]
            legs.append(_leg(flight, info, price))
            total_price += price * seats
        total_price -= sum(leg["price"] for leg in reservation["flights"]) * seats
        payment = self._payment_for_update(user, reservation["user_id"], payment_id, total_price)
        reservation = self.db.writable("reservations", reservation_id)
        if payment is not None:
            reservation["payment_history"].append(payment)
        reservation["flights"] = legs
        reservation["cabin"] = cabin
        return views.reservation_view(reservation)

    def update_reservation_passengers(
        self, reservation_id: str, passengers: list[Passenger]
    ) -> Record:
        reservation = self._reservation(reservation_id)
        if len(passengers) != len(reservation["passengers"]):
            raise ToolError("Number of passengers does not match")
        reservation = self.db.writable("reservations", reservation_id)
        reservation["passengers"] = [p.model_dump() for p in passengers]
        return views.reservation_view(reservation)

    def send_certificate(self, user_id: str, amount: int) -> str:
        user = self._user(user_id)
        for payment_id in NEW_CERTIFICATE_IDS:
            if payment_id not in user["payment_methods"]:
                certificate = {"source": "certificate", "id": payment_id, "amount": float(amount)}
                self.db.writable("users", user_id)["payment_methods"][payment_id] = certificate
                return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
        raise ToolError("Too many certificates")

    def _payment_for_update(
        self, user: Record, user_id: str, payment_id: str, total_price: int
    ) -> dict[str, Any] | None:
        """Check the payment method, then charge it (gift cards only hold a balance)."""
        method = user["payment_methods"].get(payment_id)
        if method is None:
            raise ToolError("Payment method not found")
        if method["source"] == "certificate":
            raise ToolError("Certificate cannot be used to update reservation")
        if method["source"] == "gift_card" and method["amount"] < total_price:
            raise ToolError("Gift card balance is not enough")
        if method["source"] == "gift_card" and total_price != 0:
            writable = self.db.writable("users", user_id)
            writable["payment_methods"][payment_id]["amount"] -= total_price
        return {"payment_id": payment_id, "amount": total_price} if total_price != 0 else None


def _leg(flight: Record, info: FlightInfo, price: int) -> Record:
    return {
        "flight_number": info.flight_number,
        "origin": flight["origin"],
        "destination": flight["destination"],
        "date": info.date,
        "price": price,
    }
