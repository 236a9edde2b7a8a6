"""The one exception the MCP layer raises, and its short machine-readable kinds."""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    INVALID_CONFIG = "invalid_config"
    COMMAND_NOT_FOUND = "command_not_found"
    SPAWN_FAILED = "spawn_failed"
    SERVER_EXITED = "server_exited"
    INVALID_OUTPUT = "invalid_output"
    CONNECT_TIMEOUT = "connect_timeout"
    CONNECTION_REFUSED = "connection_refused"
    AUTH_FAILED = "auth_failed"
    NOT_FOUND = "not_found"
    HTTP_ERROR = "http_error"
    TLS_ERROR = "tls_error"
    NETWORK_ERROR = "network_error"
    ADDRESS_REFUSED = "address_refused"  # the URL resolves to an address EvalHub must not connect to
    SERVER_CRASHED = "server_crashed"
    CONNECTION_LOST = "connection_lost"
    REQUEST_TIMEOUT = "request_timeout"
    SERVER_ERROR = "server_error"
    PROTOCOL_ERROR = "protocol_error"


class McpConnectionError(Exception):
    """Connecting to or talking with an MCP server failed.

    `message` is one sentence for a person: what happened and what to check. It and `stderr_tail` (the last
    lines the stdio server wrote to stderr) never contain configured secret values.
    """

    def __init__(self, kind: ErrorKind, message: str, *, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.stderr_tail = stderr_tail

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"McpConnectionError(kind={self.kind.value!r}, message={self.message!r})"

    def __reduce__(self) -> tuple[type[McpConnectionError], tuple[ErrorKind, str], dict[str, str]]:
        # Celery pickles exceptions between processes; the default reduce would lose `kind`.
        return (self.__class__, (self.kind, self.message), {"stderr_tail": self.stderr_tail})

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind.value, "message": self.message, "stderr_tail": self.stderr_tail}
