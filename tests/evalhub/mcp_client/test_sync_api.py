"""The blocking entry points, called the way Django views and Celery tasks will call them."""

from __future__ import annotations

import asyncio
import pickle
import threading

import pytest

from evalhub.mcp_client import (
    ErrorKind,
    Inspection,
    McpConnectionError,
    ServerConfig,
    connect_sync,
    inspect_server,
)

from .helpers import demo_stdio_config, fixture_config


class InspectServerFromThreadsTests:
    def test_it_works_from_a_thread_without_an_event_loop(self) -> None:
        # Django's runserver and gunicorn threads: no event loop, not the main thread.
        outcome: list[BaseException] = []

        def view() -> None:
            try:
                inspect_server(fixture_config("exit_early.py"))
            except BaseException as exc:
                outcome.append(exc)

        thread = threading.Thread(target=view)
        thread.start()
        thread.join(timeout=30)

        (error,) = outcome
        assert isinstance(error, McpConnectionError)
        assert error.kind == ErrorKind.SERVER_EXITED

    def test_it_works_when_an_event_loop_is_already_running(self, demo_http_url: str) -> None:
        async def async_view() -> Inspection:
            return inspect_server(ServerConfig(transport="http", url=demo_http_url, connect_timeout=10))

        inspection = asyncio.run(async_view())

        assert inspection.server_name == "Demo travel server"


class ConnectSyncTests:
    def test_it_calls_tools_and_passes_errors_through(self) -> None:
        with connect_sync(demo_stdio_config()) as conn:
            tools = conn.list_tools()
            weather = conn.call_tool("get_weather", {"latitude": 48.85, "longitude": 2.35})
            with pytest.raises(McpConnectionError) as caught:
                conn.call_tool("wait", {"seconds": 5}, timeout=0.2)
            info = conn.info

        assert "search_flights" in [t["name"] for t in tools]
        assert weather["structuredContent"] is not None
        assert weather["structuredContent"]["latitude"] == 48.85
        assert caught.value.kind == ErrorKind.REQUEST_TIMEOUT
        assert info.name == "Demo travel server"

    def test_a_connect_failure_raises_on_entry(self) -> None:
        with pytest.raises(McpConnectionError) as caught, connect_sync(fixture_config("exit_early.py")):
            pass

        assert caught.value.kind == ErrorKind.SERVER_EXITED


class ErrorTests:
    def test_it_survives_pickling(self) -> None:
        # Celery pickles exceptions between the worker and whoever reads the result.
        error = McpConnectionError(ErrorKind.AUTH_FAILED, "rejected", stderr_tail="last line")

        copy = pickle.loads(pickle.dumps(error))

        assert (copy.kind, copy.message, copy.stderr_tail) == (ErrorKind.AUTH_FAILED, "rejected", "last line")
        assert copy.to_dict() == {"kind": "auth_failed", "message": "rejected", "stderr_tail": "last line"}
