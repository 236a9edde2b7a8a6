"""`evalhub run --server-url / --server-command / --header / --header-env / --server-auth-bearer-env`: point the
runs of a suite at another deployment (a per-PR preview) without editing a server, as mcptest's global flags do.

The override travels in the run's settings (`server_override`) and is applied by the worker to the server's own
connection settings when the run connects (`apply`), after mcptest's precedence: the server's settings, then each
flag per field. A URL replaces a command (and the other way round); headers are added or replaced by name, case
insensitively. Environment variables (`--header-env`, `--server-auth-bearer-env`) are read by the worker, through
the same rule as a secret reference (evalhub.vault: allowlisted, never EvalHub's own settings); their values are
secrets: redacted from every record, and never printed (the banner names only the variables). A variable that
cannot be read ends the run in an error at connect (kind secret_unavailable): verdict inconclusive, cause harness.

Authorization and Proxy-Authorization are refused as headers (use --server-auth-bearer-env), and a header's name must
be an RFC 7230 token, as mcptest requires.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Mapping
from typing import Any

from evalhub import vault
from evalhub.mcp_client.config import ServerConfig

_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
REFUSED_HEADERS = frozenset({"authorization", "proxy-authorization"})


def header(value: str, *, env: bool = False) -> tuple[str, str]:
    """`NAME=VALUE` (or `NAME=ENVVAR` with `env`) checked; raises ValueError saying what is wrong."""
    name, sep, rest = value.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ValueError(f"write it as NAME={'ENVVAR' if env else 'VALUE'}")
    if not _TOKEN.match(name):
        raise ValueError(f"{name!r} is not a header name (RFC 7230: letters, digits and !#$%&'*+-.^_`|~)")
    if name.lower() in REFUSED_HEADERS:
        raise ValueError(f"{name} is not set by a header flag: use --server-auth-bearer-env ENVVAR")
    if env and not _ENV.match(rest):
        raise ValueError(f"{rest!r} is not an environment variable name")
    return name, rest


def env_name(value: str) -> str:
    if not _ENV.match(value):
        raise ValueError(f"{value!r} is not an environment variable name")
    return value


def build(
    *,
    url: str = "",
    command: str = "",
    headers: list[tuple[str, str]],
    header_env: list[tuple[str, str]],
    bearer_env: str,
) -> dict[str, Any]:
    """The override as run settings; {} when no flag was given. Raises ValueError for --server-url with
    --server-command (mcptest: mutually exclusive) or a command that does not split."""
    if url and command:
        raise ValueError("--server-url and --server-command cannot be used together")
    override: dict[str, Any] = {}
    if url:
        override["url"] = url
    if command:
        try:
            parts = shlex.split(command)  # POSIX shell rules, as mcptest's shell-words; never run through a shell
        except ValueError as error:
            raise ValueError(f"--server-command does not split into words: {error}") from None
        if not parts:
            raise ValueError("--server-command is empty")
        override["command"] = parts
    if headers:
        override["headers"] = dict(headers)
    if header_env:
        override["header_env"] = dict(header_env)
    if bearer_env:
        override["bearer_env"] = bearer_env
    return override


def banner(override: Mapping[str, Any]) -> str:
    """One line naming what was overridden (header values and variables' values are never shown)."""
    parts = []
    if "url" in override:
        parts.append(f"--server-url {override['url']}")
    if "command" in override:
        parts.append(f"--server-command {shlex.join(override['command'])}")
    parts += [f"--header {name}=…" for name in override.get("headers", {})]
    parts += [f"--header-env {name}={env}" for name, env in override.get("header_env", {}).items()]
    if "bearer_env" in override:
        parts.append(f"--server-auth-bearer-env {override['bearer_env']}")
    return "Server override (every run's server): " + ", ".join(parts)


def apply(config: ServerConfig, override: Mapping[str, Any] | None) -> ServerConfig:
    """The server's connection settings with the override applied; raises vault.SecretUnavailable when a variable
    may not or cannot be read."""
    if not override:
        return config
    changes: dict[str, Any] = {}
    if "url" in override:
        url = str(override["url"])
        transport = "sse" if url.rstrip("/").endswith("/sse") else "http"
        changes |= {"transport": transport, "url": url, "command": "", "args": [], "cwd": None, "env": {}}
    if "command" in override:
        command = list(override["command"])
        changes |= {"transport": "stdio", "command": command[0], "args": command[1:], "url": ""}
    secrets = {name: vault.reveal(f"${{{env}}}") for name, env in (override.get("header_env") or {}).items()}
    given = {**(override.get("headers") or {}), **secrets}
    if given:
        lowered = {name.lower() for name in given}
        kept = {name: value for name, value in config.headers.items() if name.lower() not in lowered}
        changes["headers"] = {**kept, **given}
        changes["secret_header_keys"] = config.secret_header_keys | frozenset(secrets)
    if "bearer_env" in override:
        changes["bearer_token"] = vault.reveal(f"${{{override['bearer_env']}}}")
    return dataclasses.replace(config, **changes)
