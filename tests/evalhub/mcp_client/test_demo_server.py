"""The bundled demo server, inspected and called over stdio, Streamable HTTP and SSE."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from evalhub.mcp_client import Connection, ServerConfig, connect, inspect_server, quality_report, tools_hash

from .helpers import demo_stdio_config

EXPECTED_TOOLS = ["book_flight", "cancel_booking", "get_weather", "search_flights", "wait"]


def http_config(url: str, **overrides: Any) -> ServerConfig:
    values: dict[str, Any] = {"transport": "http", "url": url, "connect_timeout": 10.0, "request_timeout": 10.0}
    return ServerConfig(**(values | overrides))


class InspectDemoTests:
    def test_stdio_and_http_see_the_same_server(self, demo_http_url: str) -> None:
        over_stdio = inspect_server(demo_stdio_config())
        over_http = inspect_server(http_config(demo_http_url))

        assert sorted(t["name"] for t in over_stdio.tools) == EXPECTED_TOOLS
        assert over_stdio.tools == over_http.tools
        assert over_stdio.tools_hash == over_http.tools_hash == tools_hash(over_http.tools)
        assert (over_stdio.server_name, over_stdio.server_version) == ("Demo travel server", "1.0.0")
        assert over_http.server_name == "Demo travel server"
        assert over_stdio.protocol_version == over_http.protocol_version
        assert over_stdio.transport == "stdio" and over_http.transport == "http"

    def test_it_reports_everything_the_server_offers(self) -> None:
        inspection = inspect_server(demo_stdio_config())
        tools = {t["name"]: t for t in inspection.tools}

        weather = tools["get_weather"]
        assert weather["inputSchema"]["required"] == ["latitude", "longitude"]
        assert weather["inputSchema"]["properties"]["latitude"]["maximum"] == 90
        assert weather["outputSchema"] is not None and weather["description"] is not None
        assert set(weather["outputSchema"]["properties"]) >= {"temperature_c", "conditions", "latitude", "location"}
        assert weather["annotations"] == {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }
        assert weather["description"].startswith("Get the current weather at a point")
        assert "\n    " not in weather["description"]
        assert tools["book_flight"]["inputSchema"]["required"] == ["origin", "destination", "date", "passengers"]
        assert tools["cancel_booking"]["outputSchema"] is None
        assert [r["uri"] for r in inspection.resources] == ["travel://airports"]
        assert [t["uriTemplate"] for t in inspection.resource_templates] == ["travel://airports/{code}"]
        assert inspection.prompts == [
            {
                "name": "plan_trip",
                "title": "Plan a trip",
                "description": "Ask the assistant to plan a short trip with this server's tools.",
                "arguments": [
                    {"name": "destination", "description": None, "required": True},
                    {"name": "origin", "description": None, "required": False},
                ],
            }
        ]
        assert "tools" in inspection.capabilities
        assert "offline travel agency" in (inspection.instructions or "")
        assert inspection.warnings == []
        assert 0 < inspection.duration_ms < 20_000
        assert inspection.to_dict()["tools_hash"] == inspection.tools_hash
        # The demo server is the first thing users see: it must pass our own quality checks.
        assert quality_report(inspection.tools).findings == []

    def test_the_legacy_handshake_sees_the_same_tools(self, demo_http_url: str) -> None:
        legacy = inspect_server(http_config(demo_http_url, protocol_mode="legacy"))
        modern = inspect_server(http_config(demo_http_url))

        assert legacy.protocol_version == "2025-11-25"
        assert modern.protocol_version == "2026-07-28"
        assert legacy.tools_hash == modern.tools_hash

    def test_sse_transport_sees_the_same_tools(self, demo_sse_url: str) -> None:
        over_sse = inspect_server(ServerConfig(transport="sse", url=demo_sse_url, connect_timeout=10))
        over_stdio = inspect_server(demo_stdio_config())

        assert over_sse.tools_hash == over_stdio.tools_hash


async def call_all(conn: Connection) -> dict[str, Any]:
    results: dict[str, Any] = {}
    results["weather"] = await conn.call_tool("get_weather", {"latitude": 51.47, "longitude": -0.4543})
    results["weather_again"] = await conn.call_tool("get_weather", {"latitude": 51.47, "longitude": -0.4543})
    results["weather_out_of_range"] = await conn.call_tool("get_weather", {"latitude": 123, "longitude": 0})
    results["flights"] = await conn.call_tool(
        "search_flights", {"origin": "lhr", "destination": "JFK", "date": "2025-07-14"}
    )
    results["book_missing"] = await conn.call_tool(
        "book_flight", {"origin": "LHR", "destination": "JFK", "date": "2025-07-14"}
    )
    results["book_bad"] = await conn.call_tool(
        "book_flight", {"origin": "LHR", "destination": "JFK", "date": "14/07/2025", "passengers": 0}
    )
    results["book_same"] = await conn.call_tool(
        "book_flight", {"origin": "LHR", "destination": "LHR", "date": "2025-07-14", "passengers": 1}
    )
    results["book_impossible_date"] = await conn.call_tool(
        "book_flight", {"origin": "LHR", "destination": "JFK", "date": "2025-02-30", "passengers": 1}
    )
    results["book"] = await conn.call_tool(
        "book_flight", {"origin": "LHR", "destination": "JFK", "date": "2025-07-14", "passengers": 2}
    )
    results["cancel"] = await conn.call_tool("cancel_booking", {"booking_reference": "ABC123"})
    results["wait"] = await conn.call_tool("wait", {"seconds": 0.05})
    return results


def text_of(result: dict[str, Any]) -> str:
    return " ".join(block.get("text", "") for block in result["content"])


class CallDemoToolsTests:
    @pytest.mark.parametrize("transport", ["stdio", "http"])
    def test_every_tool_answers_over_both_transports(self, transport: str, demo_http_url: str) -> None:
        config = demo_stdio_config() if transport == "stdio" else http_config(demo_http_url)

        async def run() -> dict[str, Any]:
            async with connect(config) as conn:
                return await call_all(conn)

        r = anyio.run(run)

        weather = r["weather"]
        assert weather["isError"] is False
        assert weather["structuredContent"]["location"] == "London"
        assert weather["structuredContent"]["latitude"] == 51.47
        assert isinstance(weather["structuredContent"]["temperature_c"], float)
        assert r["weather_again"] == weather, "weather must be deterministic"

        assert r["weather_out_of_range"]["isError"] is True
        assert "latitude must be between -90 and 90 (got 123)" in text_of(r["weather_out_of_range"])

        flights = r["flights"]["structuredContent"]
        assert (flights["origin"], flights["destination"], flights["date"]) == ("LHR", "JFK", "2025-07-14")
        assert 2 <= len(flights["flights"]) <= 4
        assert all(f["departure"].startswith("2025-07-14T") for f in flights["flights"])

        assert r["book_missing"]["isError"] is True
        assert text_of(r["book_missing"]) == "Invalid arguments for book_flight: Missing required argument: passengers."
        bad = text_of(r["book_bad"])
        assert "date must look like '2025-07-14' (got '14/07/2025')" in bad
        assert "passengers must be between 1 and 9 (got 0)" in bad
        assert "choose two different airports" in text_of(r["book_same"])
        assert "'2025-02-30' is not a valid date" in text_of(r["book_impossible_date"])
        assert all(r[key]["isError"] for key in ("book_bad", "book_same", "book_impossible_date"))

        booking = r["book"]["structuredContent"]
        assert r["book"]["isError"] is False
        assert booking["status"] == "confirmed" and booking["passengers"] == 2
        assert len(booking["booking_reference"]) == 6
        cheapest = min((f for f in flights["flights"] if f["seats_left"] >= 2), key=lambda f: f["price_eur"])
        assert booking["flight"] == cheapest
        assert booking["total_price_eur"] == round(cheapest["price_eur"] * 2, 2)

        assert r["cancel"]["isError"] is True
        assert "No booking found with reference 'ABC123'" in text_of(r["cancel"])
        assert r["wait"]["structuredContent"] == {"waited_seconds": 0.05}


class CityNameTests:
    """Agents (and the offline model) say "Paris" where an airport code is meant; the demo server accepts both."""

    def test_flights_and_bookings_accept_city_names(self) -> None:
        async def run() -> dict[str, Any]:
            async with connect(demo_stdio_config()) as conn:
                return {
                    "search": await conn.call_tool(
                        "search_flights", {"origin": "Paris", "destination": "rome", "date": "2026-12-18"}
                    ),
                    "by_code": await conn.call_tool(
                        "search_flights", {"origin": "CDG", "destination": "FCO", "date": "2026-12-18"}
                    ),
                    "book": await conn.call_tool(
                        "book_flight",
                        {"origin": "London", "destination": "New York", "date": "2026-12-18", "passengers": 1},
                    ),
                    "unknown": await conn.call_tool(
                        "search_flights", {"origin": "Atlantis", "destination": "Rome", "date": "2026-12-18"}
                    ),
                }

        r = anyio.run(run)

        assert r["search"]["isError"] is False
        assert (r["search"]["structuredContent"]["origin"], r["search"]["structuredContent"]["destination"]) == (
            "CDG",
            "FCO",
        )
        assert r["search"]["structuredContent"] == r["by_code"]["structuredContent"]
        assert r["book"]["isError"] is False
        assert r["book"]["structuredContent"]["status"] == "confirmed"
        assert r["unknown"]["isError"] is True
        assert "Unknown origin 'Atlantis'" in text_of(r["unknown"])
        assert "FCO (Rome)" in text_of(r["unknown"])


class BrokenWeatherModeTests:
    def test_get_weather_fails_with_the_same_tools_and_the_rest_still_works(self) -> None:
        config = demo_stdio_config(args=["-m", "evalhub.demo_server", "--mode", "broken-weather"])

        async def run() -> tuple[dict[str, Any], dict[str, Any]]:
            async with connect(config) as conn:
                weather = await conn.call_tool("get_weather", {"latitude": 48.85, "longitude": 2.35})
                flights = await conn.call_tool(
                    "search_flights", {"origin": "CDG", "destination": "FCO", "date": "2026-12-18"}
                )
                return weather, flights

        weather, flights = anyio.run(run)

        assert weather["isError"] is True
        assert text_of(weather) == (
            "Error executing tool get_weather: get_weather is unavailable: the weather service did not answer "
            "(--mode broken-weather)."
        )
        assert flights["isError"] is False
        assert inspect_server(config).tools_hash == inspect_server(demo_stdio_config()).tools_hash
