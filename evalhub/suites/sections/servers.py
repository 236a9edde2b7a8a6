"""`servers:` MCP servers (stdio, Streamable HTTP, SSE). Env and header values that are `${VAR}` are secrets."""

from __future__ import annotations

from evalhub.mcp_client.config import DEFAULT_MAX_REDIRECTS, MAX_HTTP_TIMEOUT, MAX_REDIRECTS_LIMIT
from evalhub.mcp_client.warm_pool import DEFAULT_RECYCLE_AFTER, MAX_RECYCLE_AFTER
from evalhub.suites.sections.spec import NAME, SECRET_REFERENCE, Field, Section

_VALUES = {
    "type": "object",
    "additionalProperties": {"type": "string"},
}

SECTION = Section(
    key="servers",
    description="An MCP server, by name. Scenarios refer to it by that name.",
    fields={
        "name": Field(NAME, "Unique name."),
        "description": Field({"type": "string"}, "What it is.", ""),
        "transport": Field(
            {"enum": ["stdio", "http", "sse"]},
            "stdio (a command EvalHub starts), http (Streamable HTTP) or sse.",
            "http",
        ),
        "command": Field({"type": "string"}, "stdio: the program to start (never a shell line).", ""),
        "args": Field({"type": "array", "items": {"type": "string"}}, "stdio: its arguments, one item each.", []),
        "cwd": Field({"type": "string"}, "stdio: the absolute working directory.", ""),
        "env": Field(
            _VALUES,
            "stdio: environment variables. A value written ${VAR} is a secret read from VAR where the server runs.",
            {},
            attr=None,
        ),
        "url": Field({"type": "string"}, "http/sse: the server's URL.", ""),
        "headers": Field(
            _VALUES,
            "http/sse: headers sent on every request. A value written ${VAR} is a secret; Authorization and "
            "Proxy-Authorization only ever as one (or use bearer_token).",
            {},
            attr=None,
        ),
        "bearer_token": Field(SECRET_REFERENCE, "http/sse: the bearer token, as ${VAR}.", "", attr=None),
        "protocol_mode": Field(
            {"enum": ["auto", "legacy"]}, "legacy skips the 2026 protocol probe, for old servers.", "auto"
        ),
        "connect_timeout": Field({"type": "number", "exclusiveMinimum": 0}, "Seconds to connect.", 30.0),
        "request_timeout": Field({"type": "number", "exclusiveMinimum": 0}, "Seconds per request.", 60.0),
        "http_timeout": Field(
            {"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": MAX_HTTP_TIMEOUT},
            "http/sse: seconds an answer may stay silent before the connection fails; null: no limit.",
            None,
        ),
        "max_redirects": Field(
            {"type": "integer", "minimum": 0, "maximum": MAX_REDIRECTS_LIMIT},
            "http/sse: redirects one request follows, within the same scheme, host and port only.",
            DEFAULT_MAX_REDIRECTS,
        ),
        "user_agent_override": Field(
            {"type": "string", "maxLength": 200},
            "http/sse: sent as the User-Agent header instead of the client's own.",
            "",
        ),
        "tls_insecure_skip_verify": Field(
            {"type": "boolean"}, "http/sse: accept any certificate (unsafe; prefer tls_ca_bundle_path).", False
        ),
        "tls_ca_bundle_path": Field(
            {"type": "string", "maxLength": 1000},
            "http/sse: absolute path of a PEM file of CAs to trust instead of the system's.",
            "",
        ),
        "tls_min_version": Field(
            {"enum": ["", "1.2", "1.3"]}, 'http/sse: the minimum TLS version, "1.2" or "1.3" ("": 1.2).', ""
        ),
        "warm_reuse": Field(
            {"type": "boolean"},
            "stdio: lend runs already-started server processes (stateless servers only: what a run leaves in the "
            "process is there for the next one).",
            False,
        ),
        "warm_recycle_after": Field(
            {"type": "integer", "minimum": 1, "maximum": MAX_RECYCLE_AFTER},
            "stdio with warm_reuse: runs a process serves before a fresh one starts.",
            DEFAULT_RECYCLE_AFTER,
        ),
    },
    extra_schema={
        "allOf": [
            {
                "if": {"properties": {"transport": {"const": "stdio"}}, "required": ["transport"]},
                "then": {"required": ["command"], "properties": {"command": {"minLength": 1}}},
            },
            {  # http is the default, so a server without a transport needs a URL too (and is never kept warm)
                "if": {"properties": {"transport": {"enum": ["http", "sse"]}}},
                "then": {"required": ["url"], "properties": {"url": {"minLength": 1}, "warm_reuse": {"const": False}}},
            },
        ]
    },
)
