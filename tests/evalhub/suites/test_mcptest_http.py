"""mcptest's `server.http` block imports as the server's HTTP transport settings; what does not fit is reported."""

from __future__ import annotations

from typing import Any

from evalhub.suites.mcptest import convert
from evalhub.suites.validation import problems_of


def import_server(http: Any) -> tuple[dict[str, Any], list[str]]:
    data = {"servers": {"remote": {"url": "https://mcp.example.com/mcp", "http": http}}}
    conversion = convert(data, provider="EvalHub offline", model="evalhub-offline")
    assert problems_of(conversion.suite) == []
    return conversion.suite["servers"][0], [str(note) for note in conversion.notes]


class McptestHttpTests:
    def test_the_reference_example_maps_exactly(self) -> None:
        server, notes = import_server(
            {
                "timeout": "30s",
                "connect_timeout": "500ms",
                "max_redirects": 5,
                "user_agent_override": True,
                "tls": {
                    "insecure_skip_verify": False,
                    "ca_bundle_path": "/etc/ssl/internal-ca.pem",
                    "min_version": "1.3",
                },
            }
        )

        assert notes == []
        assert {key: value for key, value in server.items() if key not in ("name", "transport", "url")} == {
            "http_timeout": 30.0,
            "connect_timeout": 0.5,
            "max_redirects": 5,
            "tls_insecure_skip_verify": False,
            "tls_ca_bundle_path": "/etc/ssl/internal-ca.pem",
            "tls_min_version": "1.3",
        }

    def test_values_evalhub_cannot_take_are_reported_with_their_place(self) -> None:
        server, notes = import_server(
            {"timeout": "2h", "max_redirects": 99, "user_agent_override": False, "tls": {"min_version": "1.1"}}
        )

        assert notes == [
            "/servers/remote/http/timeout: unsupported: not an HTTP setting EvalHub has, or a value it cannot take",
            "/servers/remote/http/max_redirects: unsupported: not an HTTP setting EvalHub has, or a value it cannot "
            "take",
            "/servers/remote/http/user_agent_override: unsupported: not an HTTP setting EvalHub has, or a value it "
            "cannot take",
            "/servers/remote/http/tls/min_version: unsupported: not an HTTP setting EvalHub has, or a value it "
            "cannot take",
        ]
        assert "http_timeout" not in server and "tls_min_version" not in server

    def test_a_value_of_the_wrong_type_is_a_problem_of_the_file_with_its_place(self) -> None:
        data = {"servers": {"remote": {"url": "https://mcp.example.com/mcp", "http": {"timeout": 30}}}}

        conversion = convert(data, provider="EvalHub offline", model="evalhub-offline")

        assert conversion.problems == [("/servers/remote/http/timeout", "expected a string, got an integer 30")]
        assert conversion.suite["servers"] == []
