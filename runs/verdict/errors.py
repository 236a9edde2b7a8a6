"""Who a run's error belongs to: its step and kind (runs.pipeline's StepFailed, the reaper's worker_lost)."""

from __future__ import annotations

# The model provider's error kinds (evalhub.model_client.errors.ErrorKind) that say nothing about the agent.
PROVIDER_KINDS = frozenset(
    {
        "auth",
        "permission",
        "rate_limited",
        "timeout",
        "model_not_found",
        "context_too_long",
        "bad_url",
        "server_error",
        "bad_request",
    }
)
# The agent's own mistake: arguments that are not a JSON object, after every retry. A replay's agent that asked its
# model or server something the cassette does not hold (runs.cassettes: a cassette miss) is the agent's too.
AGENT_KINDS = frozenset({"malformed_tool_arguments", "cassette_miss"})
# The MCP client's error kinds (evalhub.mcp_client.errors.ErrorKind): the server under test failed.
SERVER_KINDS = frozenset(
    {
        "invalid_config",
        "command_not_found",
        "spawn_failed",
        "server_exited",
        "invalid_output",
        "connect_timeout",
        "connection_refused",
        "auth_failed",
        "not_found",
        "http_error",
        "tls_error",
        "network_error",
        "address_refused",
        "server_crashed",
        "connection_lost",
        "request_timeout",
        "server_error",
        "protocol_error",
        # A replay against the live server: it answered differently from the recording (runs.cassettes).
        "server_changed",
    }
)
SIMULATOR_STEP = "simulated user"


# EvalHub's own failures, whatever step they stopped the run at (a worker lost during "model call 1").
HARNESS_KINDS = frozenset({"worker_lost", "internal"})


def error_cause(step: str, kind: str) -> str:
    """The cause of a run that ended in an error; anything not known to be the server's or agent's is EvalHub's."""
    if kind in HARNESS_KINDS:
        return "harness"
    if step == SIMULATOR_STEP:
        return "simulator"
    if step.startswith("model call"):
        if kind in AGENT_KINDS:
            return "agent"
        # A provider error is anything the model endpoint answered or failed to answer.
        return "provider"
    if kind in SERVER_KINDS:
        return "server"
    if kind in AGENT_KINDS:
        return "agent"
    return "harness"


def error_stage(step: str, cause: str) -> str:
    """The stage an error stopped the run at."""
    if step == "connect":
        return "connected"
    if step == "list tools":
        return "tools listed"
    if cause == "server":
        return "result returned"
    if cause == "agent":
        return "tool called"
    return "tool chosen"
