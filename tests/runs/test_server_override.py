"""`evalhub run`'s server flags (runs/server_override.py) and scenario selection (runs/ci/selection.py): the pure
parts, and one real run through the command and a worker whose stored server cannot start until overridden."""

from __future__ import annotations

import shlex
import subprocess
from typing import Any

import pytest

from evalhub.mcp_client.config import ServerConfig
from evalhub.scenarios.models import Tag
from evalhub.vault import SecretUnavailable
from runs.ci.selection import narrowed
from runs.models import Run
from runs.server_override import apply, banner, build, header
from tests.base import PYTHON, make_demo_server, make_scenario
from tests.runs.test_ci_command import evalhub

STDIO = ServerConfig(transport="stdio", command="old", args=["--x"], headers={"X-Keep": "1", "x-tenant": "a"})


class HeaderFlagTests:
    @pytest.mark.parametrize(
        ("value", "message"),
        [
            ("Authorization=Bearer x", "use --server-auth-bearer-env"),
            ("proxy-authorization=x", "use --server-auth-bearer-env"),
            ("X Tenant=a", "is not a header name"),
            ("X-Tenant:a", "write it as NAME=VALUE"),
        ],
    )
    def test_it_refuses_what_mcptest_refuses(self, value: str, message: str) -> None:
        with pytest.raises(ValueError, match=message):
            header(value)

    def test_an_env_header_needs_a_variable_name(self) -> None:
        assert header("X-Key=PREVIEW_KEY", env=True) == ("X-Key", "PREVIEW_KEY")
        with pytest.raises(ValueError, match="not an environment variable name"):
            header("X-Key=not a name", env=True)

    def test_url_and_command_are_exclusive(self) -> None:
        with pytest.raises(ValueError, match="cannot be used together"):
            build(url="https://x", command="y", headers=[], header_env=[], bearer_env="")


class ApplyTests:
    def test_a_url_replaces_the_command_and_headers_merge_by_name(self, settings: Any, monkeypatch: Any) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["PREVIEW_*"]
        monkeypatch.setenv("PREVIEW_KEY", "k-123")
        monkeypatch.setenv("PREVIEW_TOKEN", "t-456")
        override = build(
            url="https://pr-12.preview.example/mcp",
            headers=[("X-Tenant", "b")],
            header_env=[("X-Key", "PREVIEW_KEY")],
            bearer_env="PREVIEW_TOKEN",
        )
        config = apply(STDIO, override)
        assert (config.transport, config.url, config.command, config.args) == (
            "http",
            "https://pr-12.preview.example/mcp",
            "",
            [],
        )
        assert config.headers == {"X-Keep": "1", "X-Tenant": "b", "X-Key": "k-123"}
        assert config.bearer_token == "t-456"
        assert {"k-123", "t-456"} <= config.secrets()  # redacted from every record

    def test_a_variable_outside_the_allowlist_is_refused(self, settings: Any) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = []
        with pytest.raises(SecretUnavailable, match="not an allowed environment variable"):
            apply(STDIO, build(headers=[], header_env=[], bearer_env="SOME_TOKEN"))

    def test_the_banner_names_flags_never_values(self) -> None:
        override = build(
            command="./dev --debug", headers=[("X-Secretish", "v1")], header_env=[("X-K", "K")], bearer_env="T"
        )
        text = banner(override)
        assert text == (
            "Server override (every run's server): --server-command ./dev --debug, --header X-Secretish=…, "
            "--header-env X-K=K, --server-auth-bearer-env T"
        )
        assert "v1" not in text


class SelectionTests:
    ROWS = [
        {"id": 1, "name": "weather paris", "tags": ["smoke"]},
        {"id": 2, "name": "weather lisbon", "tags": ["smoke", "slow"]},
        {"id": 3, "name": "flights", "tags": ["smoke"]},
    ]

    def test_skip_tag_include_and_exclude_narrow(self) -> None:
        assert narrowed(self.ROWS, skip_tags=["SLOW"], include=[], exclude=[]) == [1, 3]
        assert narrowed(self.ROWS, skip_tags=[], include=["weather*"], exclude=[]) == [1, 2]
        assert narrowed(self.ROWS, skip_tags=[], include=["weather*"], exclude=["*lisbon"]) == [1]


@pytest.mark.worker
class CommandOverrideTests:
    def test_a_broken_server_runs_against_the_overriding_command_and_says_so(
        self, worker: subprocess.Popen[bytes]
    ) -> None:
        broken = make_demo_server(command="/nonexistent/mcp-server", args=[])
        smoke = Tag.objects.get_or_create(name="smoke")[0]
        slow = Tag.objects.get_or_create(name="slow")[0]
        make_scenario(broken, name="Weather in Paris").tags.add(smoke)
        make_scenario(broken, name="Weather slowly").tags.add(smoke, slow)
        command = shlex.join([PYTHON, "-m", "evalhub.demo_server"])

        result = evalhub("--tag", "smoke", "--skip-tag", "slow", "--server-command", command, "--wait")

        assert result.returncode == 0, result.stdout + result.stderr
        assert f"Server override (every run's server): --server-command {command}" in result.stdout
        assert "1/1 passed" in result.stdout
        (run,) = Run.objects.all()
        assert run.scenario.name == "Weather in Paris" and run.settings["server_override"] == {
            "command": [PYTHON, "-m", "evalhub.demo_server"]
        }
