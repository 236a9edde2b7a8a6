"""The demo server's world: a few airports and deterministic weather and flights. No network, no clock."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TypedDict


@dataclass(frozen=True)
class Airport:
    code: str
    name: str
    city: str
    country: str
    latitude: float
    longitude: float


AIRPORTS: dict[str, Airport] = {
    airport.code: airport
    for airport in (
        Airport("AMS", "Amsterdam Airport Schiphol", "Amsterdam", "NL", 52.3105, 4.7683),
        Airport("BCN", "Barcelona El Prat", "Barcelona", "ES", 41.2974, 2.0833),
        Airport("BER", "Berlin Brandenburg", "Berlin", "DE", 52.3667, 13.5033),
        Airport("CDG", "Paris Charles de Gaulle", "Paris", "FR", 49.0097, 2.5479),
        Airport("FCO", "Rome Fiumicino", "Rome", "IT", 41.8003, 12.2389),
        Airport("FRA", "Frankfurt Airport", "Frankfurt", "DE", 50.0379, 8.5622),
        Airport("JFK", "John F. Kennedy International", "New York", "US", 40.6413, -73.7781),
        Airport("LHR", "London Heathrow", "London", "GB", 51.4700, -0.4543),
        Airport("LIS", "Lisbon Humberto Delgado", "Lisbon", "PT", 38.7742, -9.1342),
        Airport("MAD", "Adolfo Suarez Madrid-Barajas", "Madrid", "ES", 40.4983, -3.5676),
        Airport("NRT", "Narita International", "Tokyo", "JP", 35.7720, 140.3929),
        Airport("SFO", "San Francisco International", "San Francisco", "US", 37.6213, -122.3790),
        Airport("SYD", "Sydney Kingsford Smith", "Sydney", "AU", -33.9399, 151.1753),
    )
}


def find_airport(place: str) -> Airport | None:
    """An airport by IATA code ("cdg"), city ("Paris", "paris, France") or airport name; None if unknown."""
    text = " ".join(place.split()).casefold()
    candidates = [text, text.split(",")[0].strip()]
    for candidate in candidates:
        for airport in AIRPORTS.values():
            if candidate and candidate in (airport.code.casefold(), airport.city.casefold(), airport.name.casefold()):
                return airport
    return None


AIRLINES = ("Demo Air", "Blue Orbit", "Northwind", "Skyline Express")
CONDITIONS = ("clear", "partly cloudy", "cloudy", "light rain", "showers", "windy", "fog", "snow")
# A weather report names the nearest airport's city when the point is within this distance.
NEAR_KM = 50.0


def _digest(*parts: object) -> int:
    # hashlib, not hash(): str hashes are salted per process and would change between runs.
    text = "|".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance (haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def nearest_city(latitude: float, longitude: float) -> str | None:
    best = min(AIRPORTS.values(), key=lambda a: distance_km(latitude, longitude, a.latitude, a.longitude))
    if distance_km(latitude, longitude, best.latitude, best.longitude) <= NEAR_KM:
        return best.city
    return None


class WeatherReport(TypedDict):
    temperature_c: float
    conditions: str
    humidity_percent: int
    wind_kph: float


def weather_at(latitude: float, longitude: float) -> WeatherReport:
    """Plausible, fixed weather for a point: colder towards the poles, same answer every time."""
    seed = _digest(round(latitude, 2), round(longitude, 2))
    temperature = 30.0 - abs(latitude) * 0.4 + (seed % 100) / 10.0 - 5.0
    # Snow only when it is cold enough for it.
    choices = CONDITIONS if temperature < 2 else CONDITIONS[:-1]
    return {
        "temperature_c": round(temperature, 1),
        "conditions": choices[seed % len(choices)],
        "humidity_percent": 35 + seed % 60,
        "wind_kph": round((seed >> 8) % 400 / 10.0, 1),
    }


def parse_date(text: str) -> date:
    """A YYYY-MM-DD date; ValueError with a readable message otherwise."""
    try:
        return datetime.strptime(text, "%Y-%m-%d").date()
    except ValueError:
        raise ValueError(f"{text!r} is not a valid date; use YYYY-MM-DD, e.g. 2025-07-14") from None


def flights_between(origin: Airport, destination: Airport, day: date) -> list[dict[str, object]]:
    """Two to four flights, identical for the same route and day."""
    km = distance_km(origin.latitude, origin.longitude, destination.latitude, destination.longitude)
    minutes = int(40 + km / 800 * 60)
    seed = _digest(origin.code, destination.code, day.isoformat())
    flights: list[dict[str, object]] = []
    for index in range(2 + seed % 3):
        slot = _digest(seed, index)
        departure = datetime(day.year, day.month, day.day, 6 + index * 4 + slot % 3, (slot >> 4) % 4 * 15)
        arrival = departure + timedelta(minutes=minutes)
        airline = AIRLINES[slot % len(AIRLINES)]
        flights.append(
            {
                "flight_number": f"{airline[:2].upper()}{100 + slot % 900}",
                "airline": airline,
                "departure": departure.isoformat(timespec="minutes"),
                "arrival": arrival.isoformat(timespec="minutes"),
                "duration_minutes": minutes,
                "price_eur": round(49 + km * 0.08 + slot % 120, 2),
                "seats_left": 1 + (slot >> 12) % 9,
            }
        )
    return flights


def booking_reference(origin: str, destination: str, day: date, passengers: int) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    number = _digest("booking", origin, destination, day.isoformat(), passengers)
    chars = []
    for _ in range(6):
        number, index = divmod(number, len(alphabet))
        chars.append(alphabet[index])
    return "".join(chars)
