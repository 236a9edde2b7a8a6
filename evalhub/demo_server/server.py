"""The Demo travel server: weather, flights and bookings over a small fixed world.

Every answer is a pure function of the arguments, so scenarios written against it have stable expected
results. One tool always fails and one is slow, to show how agents handle errors and timeouts.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import json
from collections.abc import Callable
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from evalhub.demo_server import data
from evalhub.demo_server.arguments import ArgumentCheck
from evalhub.demo_server.evals import EVALS, ShippedEvals

NAME = "Demo travel server"
VERSION = "1.0.0"
MAX_WAIT_SECONDS = 30.0

INSTRUCTIONS = (
    "A small, offline travel agency for trying out EvalHub. Look up weather by coordinates, search flights "
    f"between these airports, by code or city: {', '.join(sorted(data.AIRPORTS))} (see the travel://airports "
    "resource), and "
    "book them. Dates are YYYY-MM-DD. All data is made up but deterministic: the same question always gets "
    "the same answer."
)

# A code or a city: agents (and EvalHub's offline model) often say "Paris" where an airport code is meant.
Place = Annotated[
    str,
    Field(
        description="Airport code (IATA, e.g. LHR) or city name (e.g. London); read travel://airports for the list.",
        min_length=2,
        examples=["LHR", "London"],
    ),
]
TravelDate = Annotated[
    str,
    Field(description="Departure date as YYYY-MM-DD.", pattern=r"^\d{4}-\d{2}-\d{2}$", examples=["2025-07-14"]),
]


class Weather(BaseModel):
    latitude: float
    longitude: float
    location: str | None = Field(description="City of the nearest airport within 50 km, if any.")
    temperature_c: float = Field(description="Air temperature in degrees Celsius.")
    conditions: str = Field(description="Short sky description, e.g. 'light rain'.")
    humidity_percent: int
    wind_kph: float


class Flight(BaseModel):
    flight_number: str
    airline: str
    departure: str = Field(description="Local departure time, ISO 8601.")
    arrival: str = Field(description="Local arrival time at the destination, ISO 8601.")
    duration_minutes: int
    price_eur: float = Field(description="Price per passenger in euros.")
    seats_left: int


class FlightSearch(BaseModel):
    origin: str
    destination: str
    date: str
    flights: list[Flight]


class Booking(BaseModel):
    booking_reference: str = Field(description="Six-character reference for the booking.")
    status: str
    flight: Flight
    passengers: int
    total_price_eur: float


class Waited(BaseModel):
    waited_seconds: float


def _airport(place: str, role: str) -> data.Airport:
    airport = data.find_airport(place)
    if airport is None:
        known = ", ".join(f"{a.code} ({a.city})" for a in sorted(data.AIRPORTS.values(), key=lambda a: a.code))
        raise ToolError(f"Unknown {role} {place!r}; give an airport code or city this server knows: {known}.")
    return airport


def _route(origin: str, destination: str, date: str) -> tuple[data.Airport, data.Airport, dt.date]:
    start, end = _airport(origin, "origin"), _airport(destination, "destination")
    if start.code == end.code:
        raise ToolError(f"Origin and destination are both {start.code}; choose two different airports.")
    try:
        day = data.parse_date(date)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    return start, end, day


def get_weather(
    latitude: Annotated[float, Field(description="Latitude in degrees, -90 (south) to 90 (north).", ge=-90, le=90)],
    longitude: Annotated[float, Field(description="Longitude in degrees, -180 (west) to 180 (east).", ge=-180, le=180)],
) -> Weather:
    """Get the current weather at a point given by latitude and longitude.

    Returns temperature in Celsius, sky conditions, humidity and wind, plus the name of the nearest city
    when the point is close to a known airport. Use the airport coordinates from travel://airports to ask
    about a destination.
    """
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise ToolError(f"Coordinates out of range: latitude {latitude}, longitude {longitude}.")
    report = data.weather_at(latitude, longitude)
    return Weather(latitude=latitude, longitude=longitude, location=data.nearest_city(latitude, longitude), **report)


def search_flights(origin: Place, destination: Place, date: TravelDate) -> FlightSearch:
    """Find the direct flights from one airport to another on a given day; give airports by code or city.

    Returns each flight's number, airline, local departure and arrival times, duration, price per
    passenger in euros and seats left. Search before booking: book_flight books the cheapest of these.
    """
    start, end, day = _route(origin, destination, date)
    flights = [Flight.model_validate(f) for f in data.flights_between(start, end, day)]
    return FlightSearch(origin=start.code, destination=end.code, date=day.isoformat(), flights=flights)


def book_flight(
    origin: Place,
    destination: Place,
    date: TravelDate,
    passengers: Annotated[int, Field(description="Number of travellers, 1 to 9.", ge=1, le=9)],
) -> Booking:
    """Book the cheapest flight with enough free seats from origin to destination on a date.

    Returns the booking reference, the booked flight and the total price for all passengers. Fails with a
    message saying why when the route is unknown, the date is invalid or no flight has enough seats.
    """
    start, end, day = _route(origin, destination, date)
    options = [Flight.model_validate(f) for f in data.flights_between(start, end, day)]
    fitting = [flight for flight in options if flight.seats_left >= passengers]
    if not fitting:
        most = max(flight.seats_left for flight in options)
        raise ToolError(
            f"No flight from {start.code} to {end.code} on {day} has {passengers} free seats (most: {most})."
        )
    flight = min(fitting, key=lambda f: f.price_eur)
    return Booking(
        booking_reference=data.booking_reference(start.code, end.code, day, passengers),
        status="confirmed",
        flight=flight,
        passengers=passengers,
        total_price_eur=round(flight.price_eur * passengers, 2),
    )


def cancel_booking(
    booking_reference: Annotated[str, Field(description="The six-character reference returned by book_flight.")],
) -> str:
    """Cancel a booking by its reference.

    Demo behaviour: bookings are not stored, so this always fails with "booking not found". Use it to see
    how an agent reacts to a tool error.
    """
    raise ToolError(f"No booking found with reference {booking_reference!r}; check the reference and try again.")


async def wait(
    seconds: Annotated[
        float, Field(description=f"How long to wait, 0 to {MAX_WAIT_SECONDS:g} seconds.", ge=0, le=MAX_WAIT_SECONDS)
    ],
) -> Waited:
    """Wait for the given number of seconds, then report how long it waited.

    Does nothing else; it exists to test timeouts and slow tools.
    """
    await anyio.sleep(min(seconds, MAX_WAIT_SECONDS))
    return Waited(waited_seconds=seconds)


def airports() -> str:
    """Every airport this server knows: code, name, city, country and coordinates."""
    return json.dumps([vars(airport) for airport in data.AIRPORTS.values()], indent=2)


def airport(code: str) -> str:
    """One airport by its IATA code."""
    found = data.AIRPORTS.get(code.upper())
    if found is None:
        raise ValueError(f"Unknown airport {code!r}")
    return json.dumps(vars(found), indent=2)


def plan_trip(destination: str, origin: str = "") -> str:
    """Ask the assistant to plan a short trip with this server's tools."""
    start = f" from {origin}" if origin else ""
    return (
        f"Plan a three-day trip{start} to {destination}. Check the weather at the destination airport, "
        "search flights for next Friday, and book the cheapest one for one passenger. Summarise the plan "
        "with the booking reference."
    )


def _doc(fn: Callable[..., Any]) -> str:
    # The SDK publishes __doc__ verbatim, indentation included.
    return inspect.cleandoc(fn.__doc__ or "")


MODES = ("normal", "broken-weather")


def _broken(tool: Callable[..., Any]) -> Callable[..., Any]:
    """The same tool (name, schema, description) whose every call fails: a real change of server behaviour for
    experiments to catch as a regression."""

    @functools.wraps(tool)
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ToolError(f"{tool.__name__} is unavailable: the weather service did not answer (--mode broken-weather).")

    return broken


def build_server(mode: str = "normal") -> MCPServer:
    """`mode` "broken-weather" serves get_weather failing every call; everything else is unchanged."""
    server = MCPServer(NAME, version=VERSION, instructions=INSTRUCTIONS, log_level="WARNING")
    weather = _broken(get_weather) if mode == "broken-weather" else get_weather
    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    booking = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    )
    cancelling = ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
    )
    server.add_tool(weather, title="Weather at coordinates", description=_doc(get_weather), annotations=read_only)
    server.add_tool(search_flights, title="Search flights", description=_doc(search_flights), annotations=read_only)
    server.add_tool(book_flight, title="Book a flight", description=_doc(book_flight), annotations=booking)
    # structured_output=False: it never returns, so an outputSchema for its `str` would only mislead.
    server.add_tool(
        cancel_booking,
        title="Cancel a booking",
        description=_doc(cancel_booking),
        annotations=cancelling,
        structured_output=False,
    )
    server.add_tool(wait, title="Wait", description=_doc(wait), annotations=read_only)
    server.resource(
        "travel://airports", name="airports", title="Airports", description=_doc(airports), mime_type="application/json"
    )(airports)
    server.resource(
        "travel://airports/{code}",
        name="airport",
        title="Airport",
        description=_doc(airport),
        mime_type="application/json",
    )(airport)
    server.prompt(title="Plan a trip", description=_doc(plan_trip))(plan_trip)
    server.middleware.append(ArgumentCheck(server))
    server.middleware.append(ShippedEvals(EVALS))
    return server
