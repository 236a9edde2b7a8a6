"""Suite files carry a server's HTTP transport settings, and refuse credential headers and bad header names."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User

from evalhub.servers.models import McpServer
from evalhub.suites.services import suite_apply, suite_export
from evalhub.suites.source import load
from evalhub.suites.validation import InvalidSuite
from tests.evalhub.mcp_client.tls_helpers import self_signed

URL = "http://testserver/api/v1/schemas/suite.json"
SERVER = "servers:\n- name: remote\n  url: https://mcp.example.com/mcp\n"


@pytest.mark.django_db
class SuiteHttpSettingsTests:
    def test_they_go_out_and_come_back(self, alice: User, tmp_path: Path) -> None:
        bundle = str(self_signed(tmp_path)[0])
        text = SERVER + (
            "  http_timeout: 12.5\n  max_redirects: 3\n  user_agent_override: acme-probe/2.1\n"
            f"  tls_insecure_skip_verify: false\n  tls_ca_bundle_path: {bundle}\n  tls_min_version: '1.3'\n"
        )

        suite_apply(text=text, filename="evals.yaml", user=alice)

        server = McpServer.objects.get(name="remote")
        assert (server.http_timeout, server.max_redirects, server.user_agent_override) == (12.5, 3, "acme-probe/2.1")
        assert (server.tls_ca_bundle_path, server.tls_min_version) == (bundle, "1.3")
        exported = next(s for s in load(suite_export(schema_url=URL)).data["servers"] if s["name"] == "remote")
        assert exported["http_timeout"] == 12.5 and exported["tls_min_version"] == "1.3"
        assert "tls_insecure_skip_verify" not in exported  # defaults are left out

    def test_an_unloadable_ca_bundle_is_named_with_its_place(self, alice: User, tmp_path: Path) -> None:
        with pytest.raises(InvalidSuite) as raised:
            suite_apply(text=SERVER + f"  tls_ca_bundle_path: {tmp_path}/none.pem\n", filename="e.yaml", user=alice)

        assert str(raised.value) == (
            f"e.yaml:4 /servers/0/tls_ca_bundle_path: There is no file at {tmp_path}/none.pem on the machine "
            "EvalHub runs on."
        )

    def test_authorization_written_as_a_value_is_refused(self, alice: User) -> None:
        text = SERVER + "  headers:\n    Proxy-Authorization: Basic eA==\n"

        with pytest.raises(InvalidSuite) as raised:
            suite_apply(text=text, filename="e.yaml", user=alice)

        assert str(raised.value) == (
            "e.yaml:5 /servers/0/headers/Proxy-Authorization: Proxy-Authorization looks like a credential: write it "
            "as a ${VAR} reference"
        )

    def test_a_header_name_that_is_not_a_token_is_refused(self, alice: User) -> None:
        with pytest.raises(InvalidSuite) as raised:
            suite_apply(text=SERVER + "  headers:\n    X Tenant: acme\n", filename="e.yaml", user=alice)

        assert str(raised.value) == (
            "e.yaml:5 /servers/0/headers/X Tenant: “X Tenant” is not a valid header name (an RFC 7230 token: letters, "
            "digits and ! # $ % & ' * + - . ^ _ ` | ~; no spaces or colons); rename it"
        )
