"""Protocol compliance: what the handshake, the lists and a few deliberate requests showed. Pure: no I/O.

Checked (the probe made the requests, each within the check-up's time limit):
- the negotiated protocol version is one the spec defines;
- every capability the server declared answers its list, and a list it did not declare is not answered with items;
- list pagination ends (no cursor seen twice, at most MAX_PAGES pages) and repeats no item;
- `ping` answers; an unknown method gets -32601; malformed params get -32602; a call of an unknown tool is an error
  (JSON-RPC or isError), never a success;
- a `notifications/<list>/list_changed` the server sent was declared (`listChanged: true`);
- nothing but JSON-RPC on a stdio server's stdout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS

from evalhub.checkups.findings import Finding

# The lists a check-up requests: (observation key, method, capability, item key, what names an item).
LISTS = (
    ("tools", "tools/list", "tools", "tools", "name"),
    ("resources", "resources/list", "resources", "resources", "uri"),
    ("resource_templates", "resources/templates/list", "resources", "resourceTemplates", "uriTemplate"),
    ("prompts", "prompts/list", "prompts", "prompts", "name"),
)
MAX_PAGES = 50
LIST_CHANGED = {
    "tools": "notifications/tools/list_changed",
    "resources": "notifications/resources/list_changed",
    "prompts": "notifications/prompts/list_changed",
}


def _f(severity: Any, code: str, message: str, advice: str, subject: str, field: str, evidence: str = "") -> Finding:
    return Finding("compliance", severity, code, message, advice, subject, field, evidence)


def _answered(answer: Mapping[str, Any]) -> str:
    if answer["outcome"] == "error":
        return f"JSON-RPC error {answer['code']} ({answer['message']})"
    if answer["outcome"] == "result":
        return "a result"
    return f"{answer['outcome']}: {answer['message']}"


def compliance_findings(observations: Mapping[str, Any]) -> list[Finding]:
    server = observations["server"]
    found: list[Finding] = []
    version = server["protocol_version"]
    if version not in SUPPORTED_PROTOCOL_VERSIONS:
        found.append(
            _f(
                "error",
                "unknown_protocol_version",
                f"The server negotiated protocol version {version!r}, which is not one the spec defines.",
                f"Answer one of {', '.join(SUPPORTED_PROTOCOL_VERSIONS)}.",
                "initialize",
                "protocolVersion",
                version,
            )
        )
    for key, method, capability, _, _ in LISTS:
        listed = observations["lists"].get(key)
        if listed is not None:
            found.extend(_list(method, capability, listed, server["capabilities"]))
    found.extend(_probes(observations["probes"]))
    capabilities = server["capabilities"]
    for capability, method in LIST_CHANGED.items():
        declared = bool((capabilities.get(capability) or {}).get("listChanged"))
        if method in observations.get("notifications", []) and not declared:
            found.append(
                _f(
                    "warning",
                    "list_changed_undeclared",
                    f"The server sent {method} but did not declare {capability}.listChanged.",
                    f'Declare "{capability}": {{"listChanged": true}} in the capabilities, or do not send it.',
                    capability,
                    f"capabilities.{capability}.listChanged",
                    method,
                )
            )
    for warning in observations.get("warnings", []):
        found.append(_f("warning", "stdout_noise", warning, "Log to stderr only.", "stdio", "stdout"))
    return found


def _list(method: str, capability: str, listed: Mapping[str, Any], capabilities: Mapping[str, Any]) -> list[Finding]:
    declared = capability in capabilities
    failure = listed.get("failure")
    if failure is not None:
        if declared or failure["outcome"] == "timeout":
            return [
                _f(
                    "error",
                    "list_failed",
                    f"{method} answered {_answered(failure)}"
                    + (f", though the server declared the {capability!r} capability." if declared else "."),
                    f"Answer {method} (every page), or do not declare {capability!r}.",
                    method,
                    f"capabilities.{capability}",
                )
            ]
        return []
    found: list[Finding] = []
    if not declared and listed["items"]:
        found.append(
            _f(
                "warning",
                "undeclared_capability",
                f"{method} answered {len(listed['items'])} item(s) but the server did not declare {capability!r}; "
                "clients will never ask for them.",
                f"Declare the {capability!r} capability.",
                method,
                f"capabilities.{capability}",
            )
        )
    problem = listed.get("cursor_problem")
    if problem == "loop":
        found.append(
            _f(
                "error",
                "pagination_loop",
                f"{method} handed out a cursor it had handed out before, so listing never ends.",
                "Give the last page no nextCursor, and never repeat a cursor.",
                method,
                "nextCursor",
                f"cursor {listed['repeated_cursor']!r} after {listed['pages']} pages",
            )
        )
    elif problem == "endless":
        found.append(
            _f(
                "error",
                "pagination_endless",
                f"{method} still had a nextCursor after {MAX_PAGES} pages.",
                "Give the last page no nextCursor.",
                method,
                "nextCursor",
                f"{listed['pages']} pages",
            )
        )
    elif listed.get("duplicates"):
        names = ", ".join(listed["duplicates"][:10])
        found.append(
            _f(
                "error",
                "pagination_duplicates",
                f"{method} listed the same item more than once across its pages: {names}.",
                "Make each page start where the previous one ended, and keep names unique.",
                method,
                "nextCursor",
                f"{listed['pages']} pages",
            )
        )
    return found


def _probes(probes: Mapping[str, Mapping[str, Any]]) -> list[Finding]:
    found: list[Finding] = []
    ping = probes.get("ping")
    if ping is not None and ping["outcome"] != "result":
        found.append(
            _f("error", "ping_failed", f"ping answered {_answered(ping)}.", "Answer ping at once.", "ping", "")
        )
    for name, method, code, field in (
        ("unknown_method", "an unknown method", mcp_types.METHOD_NOT_FOUND, "error.code"),
        ("bad_params", "tools/call without a name", mcp_types.INVALID_PARAMS, "error.code"),
    ):
        answer = probes.get(name)
        if answer is None or (answer["outcome"] == "error" and answer["code"] == code):
            continue
        found.append(
            _f(
                "error",
                f"{name}_wrong_answer",
                f"{method[0].upper() + method[1:]} was answered with {_answered(answer)}, not JSON-RPC error {code}.",
                f"Answer {method} with JSON-RPC error {code}.",
                name.replace("_", " "),
                field,
                _answered(answer),
            )
        )
    unknown_tool = probes.get("unknown_tool")
    if unknown_tool is not None:
        ok_error = unknown_tool["outcome"] == "error" or (
            unknown_tool["outcome"] == "result" and (unknown_tool.get("result") or {}).get("isError")
        )
        if not ok_error:
            found.append(
                _f(
                    "error",
                    "unknown_tool_wrong_answer",
                    f"A call of a tool the server does not have was answered with {_answered(unknown_tool)}.",
                    "Answer a call of an unknown tool with an error (JSON-RPC -32602 or isError).",
                    "tools/call",
                    "params.name",
                    _answered(unknown_tool),
                )
            )
    return found
