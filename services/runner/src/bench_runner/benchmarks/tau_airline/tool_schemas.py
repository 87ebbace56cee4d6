"""The 14 airline tools as the agent sees them: argument models and OpenAI function schemas.

Each tool's arguments are one pydantic model; the same model validates a call and produces
the JSON schema sent to the model, so the two cannot drift. Descriptions are τ²'s docstrings.
Nested objects ignore unknown keys as τ²'s models do; unknown top-level arguments are refused
by the environment (τ² raises `TypeError` for them).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

FlightType = Literal["round_trip", "one_way"]
CabinClass = Literal["business", "economy", "basic_economy"]
Insurance = Literal["yes", "no"]

_PAYMENT_ID = (
    "The payment id stored in user profile, such as 'credit_card_7815826', "
    "'gift_card_7815826', 'certificate_7815826'."
)
_ORIGIN = "The origin city airport in three letters, such as 'JFK'."
_DESTINATION = "The destination city airport in three letters, such as 'LAX'."


class _Args(BaseModel):
    model_config = ConfigDict(title="parameters", frozen=True)


class FlightInfo(BaseModel):
    flight_number: str = Field(description="Flight number, such as 'HAT001'.")
    date: str = Field(
        description="The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'."
    )


class Passenger(BaseModel):
    first_name: str = Field(description="Passenger's first name")
    last_name: str = Field(description="Passenger's last name")
    dob: str = Field(description="Date of birth in YYYY-MM-DD format")


class Payment(BaseModel):
    payment_id: str = Field(description="Unique identifier for the payment")
    amount: int = Field(description="Payment amount in dollars")


class UserIdArgs(_Args):
    user_id: str = Field(description="The user ID, such as 'sara_doe_496'.")


class ReservationIdArgs(_Args):
    reservation_id: str = Field(description="The reservation ID, such as 'ZFA04Y'.")


class SearchArgs(_Args):
    origin: str = Field(description=_ORIGIN)
    destination: str = Field(description=_DESTINATION)
    date: str = Field(
        description="The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'."
    )


class OneStopSearchArgs(SearchArgs):
    date: str = Field(
        description="The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'."
    )


class NoArgs(_Args):
    pass


class BookReservationArgs(_Args):
    user_id: str = Field(
        description="The ID of the user to book the reservation such as 'sara_doe_496'`."
    )
    origin: str = Field(description="The IATA code for the origin city such as 'SFO'.")
    destination: str = Field(description="The IATA code for the destination city such as 'JFK'.")
    flight_type: FlightType = Field(
        description="The type of flight such as 'one_way' or 'round_trip'."
    )
    cabin: CabinClass = Field(
        description="The cabin class such as 'basic_economy', 'economy', or 'business'."
    )
    flights: list[FlightInfo] = Field(
        description="An array of objects containing details about each piece of flight."
    )
    passengers: list[Passenger] = Field(
        description="An array of objects containing details about each passenger."
    )
    payment_methods: list[Payment] = Field(
        description="An array of objects containing details about each payment method."
    )
    total_baggages: int = Field(
        description="The total number of baggage items to book the reservation."
    )
    nonfree_baggages: int = Field(
        description="The number of non-free baggage items to book the reservation."
    )
    insurance: Insurance = Field(description="Whether the reservation has insurance.")


class CalculateArgs(_Args):
    expression: str = Field(
        description=(
            "The mathematical expression to calculate, such as '2 + 2'. The expression can "
            "contain numbers, operators (+, -, *, /), parentheses, and spaces."
        )
    )


class FlightStatusArgs(_Args):
    flight_number: str = Field(description="The flight number.")
    date: str = Field(description="The date of the flight.")


class SendCertificateArgs(_Args):
    user_id: str = Field(
        description="The ID of the user to book the reservation, such as 'sara_doe_496'."
    )
    amount: int = Field(description="The amount of the certificate to send.")


class TransferArgs(_Args):
    summary: str = Field(description="A summary of the user's issue.")


class UpdateBaggagesArgs(_Args):
    reservation_id: str = Field(description="The reservation ID, such as 'ZFA04Y'")
    total_baggages: int = Field(
        description="The updated total number of baggage items included in the reservation."
    )
    nonfree_baggages: int = Field(
        description="The updated number of non-free baggage items included in the reservation."
    )
    payment_id: str = Field(description=_PAYMENT_ID)


class UpdateFlightsArgs(_Args):
    reservation_id: str = Field(description="The reservation ID, such as 'ZFA04Y'.")
    cabin: CabinClass = Field(description="The cabin class of the reservation")
    flights: list[FlightInfo] = Field(
        description=(
            "An array of objects containing details about each piece of flight in the ENTIRE "
            "new reservation. Even if the a flight segment is not changed, it should still be "
            "included in the array."
        )
    )
    payment_id: str = Field(description=_PAYMENT_ID)


class UpdatePassengersArgs(_Args):
    reservation_id: str = Field(description="The reservation ID, such as 'ZFA04Y'.")
    passengers: list[Passenger] = Field(
        description="An array of objects containing details about each passenger."
    )


_SEARCH = (
    "Search {kind} flights between two cities on a specific date. It provides information "
    "about departure and arrival times, flight number, and price per cabin."
)

TOOL_ARGS: dict[str, tuple[type[_Args], str]] = {
    "book_reservation": (BookReservationArgs, "Book a reservation."),
    "calculate": (CalculateArgs, "Calculate the result of a mathematical expression."),
    "cancel_reservation": (ReservationIdArgs, "Cancel the whole reservation."),
    "get_reservation_details": (ReservationIdArgs, "Get the details of a reservation."),
    "get_user_details": (UserIdArgs, "Get the details of a user, including their reservations."),
    "list_all_airports": (NoArgs, "Returns a list of all available airports."),
    "search_direct_flight": (SearchArgs, _SEARCH.format(kind="direct")),
    "search_onestop_flight": (OneStopSearchArgs, _SEARCH.format(kind="one-stop")),
    "send_certificate": (SendCertificateArgs, "Send a certificate to a user. Be careful!"),
    "transfer_to_human_agents": (
        TransferArgs,
        "Transfer the user to a human agent, with a summary of the user's issue.\n\n"
        "Only transfer if\n -  the user explicitly asks for a human agent\n -  given the policy "
        "and the available tools, you cannot solve the user's issue.",
    ),
    "update_reservation_baggages": (
        UpdateBaggagesArgs,
        "Update the baggage information of a reservation.",
    ),
    "update_reservation_flights": (
        UpdateFlightsArgs,
        "Update the flight information of a reservation. If performing a downgrade, the "
        "refunded amount will be shown in the payment_id, baggages are automatically adjusted "
        "and accounted for in the refunded amount.",
    ),
    "update_reservation_passengers": (
        UpdatePassengersArgs,
        "Update the passenger information of a reservation.",
    ),
    "get_flight_status": (FlightStatusArgs, "Get the status of a flight."),
}
"""Tool name -> (argument model, description), in τ²'s toolkit order."""


def _schema(name: str, args: type[_Args], description: str) -> dict[str, JsonValue]:
    parameters: dict[str, Any] = args.model_json_schema()
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


TOOL_SCHEMAS: list[dict[str, JsonValue]] = [
    _schema(name, args, description) for name, (args, description) in TOOL_ARGS.items()
]
"""The `tools` of every agent request (OpenAI function-tool format)."""
