"""A bearer token, a secret header and a secret environment variable never appear in any page: list, detail,
forms (also after a failed save), inspection errors, snapshot, delete, or the admin."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.servers.models import McpServer
from tests.base import PYTHON, make_demo_server
from tests.evalhub.mcp_client.helpers import FIXTURES, free_port

BEARER = "tok-never-shown-4b1d"
HEADER_SECRET = "hdr-never-shown-8c2e"
ENV_SECRET = "env-never-shown-a7f3"
SECRETS = (BEARER, HEADER_SECRET, ENV_SECRET)


def assert_no_secret(content: bytes, where: str) -> None:
    text = content.decode()
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked into {where}"


@pytest.fixture
def servers(db: None) -> tuple[McpServer, McpServer]:
    # The exit_early fixture prints $DEMO_TOKEN to stderr, so the inspection error has a secret to leak.
    stdio = make_demo_server(args=[str(FIXTURES / "exit_early.py")], command=PYTHON)
    stdio.set_secrets(bearer_token="", env={"DEMO_TOKEN": ENV_SECRET}, headers={})
    stdio.save()
    remote = McpServer(name="Remote", transport="http", url=f"http://127.0.0.1:{free_port()}/mcp", connect_timeout=5)
    remote.set_secrets(bearer_token=BEARER, env={}, headers={"X-Api-Key": HEADER_SECRET})
    remote.save()
    return stdio, remote


@pytest.mark.django_db
class ServerSecretsTests:
    def test_no_page_shows_a_secret(
        self, alice_client: Client, bob_client: Client, servers: tuple[McpServer, ...]
    ) -> None:
        stdio, remote = servers
        for server in servers:
            assert_no_secret(
                alice_client.post(f"/servers/{server.pk}/inspect/", HTTP_HX_REQUEST="true").content, "inspect"
            )
            assert_no_secret(
                alice_client.post(f"/servers/{server.pk}/inspect/", follow=True).content, "inspect redirect"
            )
        stdio.refresh_from_db()
        assert "error: upstream rejected token [redacted]" in stdio.last_error["stderr_tail"]

        pages = ["/servers/", "/servers/new/"]
        for server in servers:
            pages += [f"/servers/{server.pk}/", f"/servers/{server.pk}/edit/", f"/servers/{server.pk}/delete/"]
        for page in pages:
            response = alice_client.get(page)
            assert response.status_code == 200, page
            assert_no_secret(response.content, page)
        for page in ["/servers/", f"/servers/{stdio.pk}/", f"/servers/{remote.pk}/", f"/servers/{remote.pk}/edit/"]:
            assert_no_secret(bob_client.get(page).content, f"{page} as bob")
        assert "•••• set" in alice_client.get(f"/servers/{remote.pk}/").content.decode()

    def test_a_form_that_fails_does_not_echo_secrets(
        self, alice_client: Client, servers: tuple[McpServer, ...]
    ) -> None:
        _, remote = servers
        response = alice_client.post(
            f"/servers/{remote.pk}/edit/",
            {
                "name": "Remote",
                "transport": "http",
                "url": "not a url",
                "bearer_token": BEARER,
                "secret_headers_text": f"X-Other: {HEADER_SECRET}\n{ENV_SECRET}",
                "connect_timeout": "30",
                "request_timeout": "60",
                "protocol_mode": "auto",
            },
        )

        assert response.status_code == 200 and response.context["form"].errors
        assert_no_secret(response.content, "the form with errors")

    def test_the_admin_never_shows_sealed_secrets(self, client: Client, servers: tuple[McpServer, ...]) -> None:
        client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
        for server in servers:
            change = client.get(f"/admin/evalhub/mcpserver/{server.pk}/change/")
            assert change.status_code == 200
            assert "sealed_secrets" not in change.content.decode()
            assert server.sealed_secrets not in change.content.decode()
            assert_no_secret(change.content, "the admin change page")
        assert_no_secret(client.get("/admin/evalhub/mcpserver/").content, "the admin list")
