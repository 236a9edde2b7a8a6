"""Adding a server: one transport's fields, secrets sealed on the way in, stdio for staff only."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from evalhub.servers.models import McpServer
from tests.base import PROJECT_DIR, PYTHON

TOKEN = "tok-create-7f3a9c"


def stdio_data(**overrides: Any) -> dict[str, Any]:
    data = {
        "name": "Demo over stdio",
        "description": "The bundled demo server",
        "transport": "stdio",
        "command": PYTHON,
        "args_text": "-m\nevalhub.demo_server\n",
        "cwd": str(PROJECT_DIR),
        "env_text": "LOG_LEVEL=debug",
        "secret_env_text": f"DEMO_TOKEN={TOKEN}",
        "connect_timeout": "30",
        "request_timeout": "60",
        "protocol_mode": "auto",
    }
    return data | overrides


def http_data(**overrides: Any) -> dict[str, Any]:
    data = {
        "name": "Demo over HTTP",
        "transport": "http",
        "url": "https://mcp.example.com/mcp",
        "headers_text": "X-Tenant: acme",
        "secret_headers_text": "X-Api-Key: key-123456",
        "bearer_token": TOKEN,
        "connect_timeout": "30",
        "request_timeout": "60",
        "protocol_mode": "auto",
    }
    return data | overrides


@pytest.mark.django_db
class ServerCreateTests:
    def test_it_shows_the_form_with_default_timeouts(self, alice_client: Client) -> None:
        response = alice_client.get("/servers/new/")

        assert response.status_code == 200
        form = response.context["form"]
        assert form["connect_timeout"].value() == 30
        assert form["request_timeout"].value() == 60
        assert [value for value, _ in form.fields["transport"].choices] == ["stdio", "http", "sse"]
        assert b'data-transports="stdio"' in response.content

    def test_staff_adds_a_stdio_server_with_arguments_as_a_list(self, alice_client: Client) -> None:
        response = alice_client.post("/servers/new/", stdio_data())

        server = McpServer.objects.get(name="Demo over stdio")
        assert response.status_code == 302
        assert response["Location"] == f"/servers/{server.pk}/"
        assert server.transport == "stdio"
        assert server.command == PYTHON
        assert server.args == ["-m", "evalhub.demo_server"]
        assert server.cwd == str(PROJECT_DIR)
        assert server.env == {"LOG_LEVEL": "debug"}
        assert server.secrets()["env"] == {"DEMO_TOKEN": TOKEN}
        assert TOKEN not in server.sealed_secrets
        assert server.created_by is not None and server.created_by.username == "alice"
        assert (server.connect_timeout, server.request_timeout) == (30.0, 60.0)

    def test_warm_reuse_is_off_by_default_and_explained_on_the_form(self, alice_client: Client) -> None:
        page = alice_client.get("/servers/new/").content.decode()
        alice_client.post("/servers/new/", stdio_data())

        server = McpServer.objects.get(name="Demo over stdio")
        assert (server.warm_reuse, server.warm_recycle_after) == (False, 20)
        assert "Only for stateless servers: whatever a run leaves in the process" in page
        assert "It changes no verdict rule" in page

    def test_staff_opts_a_stdio_server_in_to_warm_reuse(self, alice_client: Client) -> None:
        alice_client.post("/servers/new/", stdio_data(warm_reuse="on", warm_recycle_after="5"))

        server = McpServer.objects.get(name="Demo over stdio")
        assert (server.warm_reuse, server.warm_recycle_after) == (True, 5)

    def test_an_http_server_is_never_kept_warm_and_a_recycle_count_must_be_positive(self, alice_client: Client) -> None:
        alice_client.post("/servers/new/", http_data(warm_reuse="on"))
        refused = alice_client.post("/servers/new/", stdio_data(warm_reuse="on", warm_recycle_after="0"))

        assert McpServer.objects.get(name="Demo over HTTP").warm_reuse is False
        assert "warm_recycle_after" in refused.context["form"].errors

    def test_it_adds_an_http_server_with_headers_and_a_bearer_token(self, bob_client: Client) -> None:
        response = bob_client.post("/servers/new/", http_data())

        server = McpServer.objects.get(name="Demo over HTTP")
        assert response.status_code == 302
        assert server.url == "https://mcp.example.com/mcp"
        assert server.headers == {"X-Tenant": "acme"}
        assert server.secrets() == {"bearer_token": TOKEN, "env": {}, "headers": {"X-Api-Key": "key-123456"}}
        config = server.to_config()
        assert config.http_headers() == {
            "X-Tenant": "acme",
            "X-Api-Key": "key-123456",
            "Authorization": f"Bearer {TOKEN}",
        }

    def test_a_host_name_without_a_dot_is_a_valid_url(self, alice_client: Client) -> None:
        response = alice_client.post("/servers/new/", http_data(url="http://mcp-server:8080/mcp"))

        assert response.status_code == 302
        assert McpServer.objects.get().url == "http://mcp-server:8080/mcp"

    def test_a_url_with_a_line_break_is_refused(self, alice_client: Client) -> None:
        response = alice_client.post("/servers/new/", http_data(url="http://127.0.0.1:8765/m\ncp"))

        assert response.context["form"].errors["url"] == [
            "The URL must be one line without spaces or control characters (it contains '\\n' at character 24); "
            "remove it, or percent-encode a space as %20."
        ]
        assert not McpServer.objects.exists()

    def test_fields_of_the_other_transport_are_not_kept(self, alice_client: Client) -> None:
        alice_client.post("/servers/new/", http_data(command="npx", args_text="-y\nx", env_text="A=1"))

        server = McpServer.objects.get(name="Demo over HTTP")
        assert (server.command, server.args, server.env) == ("", [], {})

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["DEMO_TOKEN_FOR_TESTS"])
    def test_an_environment_variable_reference_is_stored_as_a_reference(self, alice_client: Client) -> None:

        alice_client.post("/servers/new/", stdio_data(secret_env_text="DEMO_TOKEN=${DEMO_TOKEN_FOR_TESTS}"))

        assert McpServer.objects.get().secrets()["env"] == {"DEMO_TOKEN": "${DEMO_TOKEN_FOR_TESTS}"}

    def test_non_staff_do_not_get_the_stdio_choice(self, bob_client: Client) -> None:
        response = bob_client.get("/servers/new/")

        assert [value for value, _ in response.context["form"].fields["transport"].choices] == ["http", "sse"]
        assert b'value="stdio"' not in response.content
        assert response.context["form"]["transport"].value() == "http"

    def test_non_staff_cannot_add_a_stdio_server(self, bob_client: Client) -> None:
        response = bob_client.post("/servers/new/", stdio_data())

        assert response.status_code == 403
        assert not McpServer.objects.exists()

    def test_it_explains_a_command_line_typed_into_the_command_field(self, alice_client: Client) -> None:
        response = alice_client.post(
            "/servers/new/", stdio_data(command="npx -y @modelcontextprotocol/server-everything", args_text="")
        )

        assert response.status_code == 200
        assert response.context["form"].errors["command"] == [
            "Put only the program here (“npx”) and each argument on its own line under Arguments "
            "(-y, @modelcontextprotocol/server-everything): EvalHub never runs a shell command line."
        ]
        assert not McpServer.objects.exists()

    def test_it_says_which_line_is_wrong_and_keeps_what_was_typed(self, alice_client: Client) -> None:
        data = stdio_data(env_text="LOG_LEVEL=debug\nnot a variable\n2BAD=x", cwd="relative/dir")
        response = alice_client.post("/servers/new/", data)

        errors = response.context["form"].errors
        assert errors["env_text"] == [
            "Line 2 has no “=”: write one NAME=value per line.",
            "Line 3: “2BAD” is not a valid variable name (letters, digits and _, not starting with a digit).",
        ]
        assert errors["cwd"] == ["Give an absolute path, starting with /, or leave it empty."]
        content = response.content.decode()
        assert "LOG_LEVEL=debug\nnot a variable\n2BAD=x" in content
        assert "relative/dir" in content
        assert "Please fix the fields marked below; nothing was saved." in content

    def test_typed_secrets_are_not_sent_back_when_the_form_has_errors(self, alice_client: Client) -> None:
        response = alice_client.post("/servers/new/", http_data(url="ftp://example.com"))

        content = response.content.decode()
        assert response.context["form"].errors["url"] == [
            "Start with http:// or https:// and a host, e.g. https://example.com/mcp."
        ]
        assert TOKEN not in content
        assert "key-123456" not in content
        assert "X-Api-Key: " in content  # the name stays, the value goes
        assert "Secret values you typed are never sent back to the browser: type them again." in content

    def test_it_requires_a_url_for_http_and_a_command_for_stdio(self, alice_client: Client) -> None:
        http = alice_client.post("/servers/new/", http_data(url=""))
        stdio = alice_client.post("/servers/new/", stdio_data(command=""))

        assert http.context["form"].errors["url"] == ["Enter the server's URL, e.g. https://example.com/mcp."]
        assert stdio.context["form"].errors["command"] == [
            "Enter the program to start, e.g. npx, uvx or /usr/local/bin/my-server."
        ]

    def test_credentials_in_plain_fields_are_refused(self, alice_client: Client) -> None:
        http = alice_client.post("/servers/new/", http_data(headers_text="Authorization: Bearer abc"))
        stdio = alice_client.post("/servers/new/", stdio_data(env_text="GITHUB_TOKEN=ghp_x"))

        assert http.context["form"].errors["headers_text"] == [
            "Authorization carries a credential: move it to Secret headers (or use Bearer token)."
        ]
        assert stdio.context["form"].errors["env_text"] == [
            "GITHUB_TOKEN looks like a credential: move it to Secret environment variables."
        ]

    def test_a_duplicate_name_is_explained(self, alice_client: Client) -> None:
        alice_client.post("/servers/new/", http_data())
        response = alice_client.post("/servers/new/", http_data())

        assert response.context["form"].errors["name"] == [
            "A server with this name already exists; choose another name."
        ]

    def test_timeouts_must_be_positive(self, alice_client: Client) -> None:
        response = alice_client.post("/servers/new/", http_data(connect_timeout="0", request_timeout="abc"))

        errors = response.context["form"].errors
        assert errors["connect_timeout"] == ["Ensure this value is greater than or equal to 1."]
        assert errors["request_timeout"] == ["Enter a number."]
