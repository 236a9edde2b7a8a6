"""What a stdio server can see of our environment, and where configured secrets may never show up."""

from __future__ import annotations

import json
from collections.abc import Callable

import anyio
import pytest

from evalhub.mcp_client import ENV_ALLOWLIST, ErrorKind, McpConnectionError, ServerConfig, connect, inspect_server

from .helpers import Stub, fixture_config

SECRET = "s3cr3t-9a8b7c6d5e"


class EnvironmentTests:
    def test_the_server_sees_only_allowlisted_and_configured_variables(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("SECRET_KEY", "django-secret")
        monkeypatch.setenv("DATABASE_URL", "postgres://user:pw@db/evalhub")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-parent")
        monkeypatch.setenv("LANG", "C.UTF-8")
        config = fixture_config(
            "tiny_server.py",
            env={"DEMO_SETTING": "on", "PATH": "/usr/bin:/bin", "DEMO_TOKEN": SECRET},
            secret_env_keys=frozenset({"DEMO_TOKEN"}),
        )

        async def run() -> dict[str, str]:
            async with connect(config) as conn:
                result = await conn.call_tool("environment")
                assert result["structuredContent"] is not None
                return dict(result["structuredContent"])

        seen = anyio.run(run)

        assert seen["DEMO_SETTING"] == "on"
        # The server got the secret; the result we hand on (to a model, to the database) has it masked.
        assert seen["DEMO_TOKEN"] == "[redacted]"
        assert seen["PATH"] == "/usr/bin:/bin", "configured values override inherited ones"
        assert seen["LANG"] == "C.UTF-8"
        for name in ("SECRET_KEY", "DATABASE_URL", "OPENAI_API_KEY"):
            assert name not in seen
        # Python adds LC_CTYPE itself when it coerces the C locale; nothing else may appear.
        assert set(seen) - {"DEMO_SETTING", "DEMO_TOKEN", "LC_CTYPE"} <= set(ENV_ALLOWLIST)


class SecretTests:
    def test_secret_env_values_never_reach_messages_or_stderr(self) -> None:
        config = fixture_config("exit_early.py", env={"DEMO_TOKEN": SECRET}, secret_env_keys=frozenset({"DEMO_TOKEN"}))

        with pytest.raises(McpConnectionError) as caught:
            inspect_server(config)

        error = caught.value
        assert error.kind == ErrorKind.SERVER_EXITED
        assert "error: upstream rejected token [redacted]" in error.stderr_tail
        assert SECRET not in error.stderr_tail + error.message + repr(error) + json.dumps(error.to_dict())

    def test_secrets_are_redacted_from_inspection_output(self) -> None:
        config = fixture_config(
            "tiny_server.py",
            "--instructions",
            f"Use token {SECRET} for upstream calls.",
            "--banner",
            f"tiny server up, token={SECRET}",
            env={"DEMO_TOKEN": SECRET},
            secret_env_keys=frozenset({"DEMO_TOKEN"}),
        )

        inspection = inspect_server(config)

        assert inspection.instructions == "Use token [redacted] for upstream calls."
        # A banner on stdout is tolerated, reported as a warning, and redacted like everything else.
        assert inspection.warnings == [
            "The server wrote 1 non-JSON line(s) to stdout (first: 'tiny server up, token=[redacted]'); "
            "stdio servers should write only JSON-RPC messages to stdout and log to stderr."
        ]
        assert SECRET not in json.dumps(inspection.to_dict())

    def test_a_bearer_token_in_a_failing_url_never_reaches_the_message(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(404)
        url = stub.url.replace("http://", f"http://user:{SECRET}@") + f"?token={SECRET}"
        config = ServerConfig(transport="http", url=url, bearer_token="other-token-123", connect_timeout=5)

        with pytest.raises(McpConnectionError) as caught:
            inspect_server(config)

        assert caught.value.kind == ErrorKind.NOT_FOUND
        assert SECRET not in caught.value.message
        assert "other-token-123" not in caught.value.message

    def test_config_lists_every_secret(self) -> None:
        config = ServerConfig(
            transport="http",
            url=f"https://bot:{SECRET}@example.com/mcp",
            bearer_token="bearer-1",
            headers={"X-Api-Key": "key-2", "X-Team": "blue", "Authorization": "Token tok-3", "X-Signed": "sig-4"},
            env={"A": "env-5", "B": "visible"},
            secret_env_keys=frozenset({"A"}),
            secret_header_keys=frozenset({"x-signed"}),
        )

        assert config.secrets() == {SECRET, "bearer-1", "key-2", "Token tok-3", "tok-3", "sig-4", "env-5"}
