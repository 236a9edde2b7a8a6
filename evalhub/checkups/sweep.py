"""The runtime sweep's facts and findings. Pure: no I/O.

The probe (probe.py) calls every tool once with arguments its inputSchema allows and twice with arguments it
does not (a required field left out, a wrong type), reads every resource and template, gets every prompt; for
each answer `call_facts` keeps what the findings need, and `runtime_findings` judges them:
- a valid call must answer, within the time limit, a result that is not an error and fits the outputSchema;
- an invalid call must fail cleanly: a tool error (isError) or JSON-RPC -32602, never a success, another error
  code, a dropped connection or silence;
- every listed resource must be readable and every prompt gettable (a template or a prompt given made-up
  parameters may refuse them: that is worth a look, not a failure).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import mcp_types

from evalhub.checkups.findings import Finding
from evalhub.mcp_client.raw import RawAnswer
from runs.tool_results import check_output_schema

# A valid call slower than this is reported (info): models and users wait on every call.
SLOW_MS = 5000
PREVIEW_CHARS = 600
CLEAN_FAILURE = (mcp_types.INVALID_PARAMS,)
# _meta keys the spec reserves for the protocol itself (e.g. the 2026 serverInfo stamp on every result).
RESERVED_META = "io.modelcontextprotocol/"


def call_facts(
    tool: Mapping[str, Any], kind: str, arguments: dict[str, Any], valid: bool, answer: RawAnswer
) -> dict[str, Any]:
    """What one tools/call answered, kept small: outcome, timing, whether it is a tool error, what it said (a
    preview), and the 004 facts: structuredContent present, whether a text block carries the same JSON, whether it
    fits the outputSchema, the result's _meta keys."""
    facts: dict[str, Any] = {
        "tool": str(tool.get("name", "")),
        "kind": kind,
        "arguments": arguments,
        "arguments_valid": valid,
        "outcome": answer.outcome,
        "code": answer.code,
        "message": answer.message[:PREVIEW_CHARS],
        "duration_ms": answer.duration_ms,
    }
    result = answer.result or {}
    if answer.ok:
        structured = result.get("structuredContent")
        facts.update(
            is_error=bool(result.get("isError")),
            structured=structured is not None,
            content_agrees=None if structured is None else _content_agrees(result.get("content"), structured),
            schema_validation=check_output_schema(dict(tool), result),
            meta_keys=own_meta_keys(result.get("_meta")),
            # What the tool said, without the _meta stamps (its own keys are in meta_keys).
            preview=json.dumps({k: v for k, v in result.items() if k != "_meta"}, ensure_ascii=False)[:PREVIEW_CHARS],
            said=_text_of(result.get("content"))[:PREVIEW_CHARS],
        )
    return facts


def _text_of(content: Any) -> str:
    """The text blocks of a result's content, as a person reads them (a finding quotes these, not the JSON)."""
    blocks = content if isinstance(content, list) else []
    texts = [block.get("text") for block in blocks if isinstance(block, dict) and block.get("type") == "text"]
    return " ".join(text.strip() for text in texts if isinstance(text, str) and text.strip())


def own_meta_keys(meta: Any) -> list[str]:
    """The server's own `_meta` keys: those under the protocol's reserved prefix are the SDK's stamps."""
    return sorted(key for key in meta if not key.startswith(RESERVED_META)) if isinstance(meta, dict) else []


def _content_agrees(content: Any, structured: Any) -> bool:
    """Whether a text block of `content` is `structured` serialised as JSON, as the spec says it SHOULD be."""
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            try:
                if json.loads(block.get("text", "")) == structured:
                    return True
            except ValueError:
                continue
    return False


def runtime_findings(observations: Mapping[str, Any], *, call_seconds: float) -> list[Finding]:
    found: list[Finding] = []
    for call in observations.get("calls", []):
        found.extend(_valid_call(call, call_seconds) if call["kind"] == "valid" else _invalid_call(call, call_seconds))
    for skipped in observations.get("skipped", []):
        found.append(
            _finding(
                "info",
                "tool_skipped",
                f"Not called: {skipped['reason']}",
                "Acknowledge side effects for this server to include it (it is then called for real).",
                skipped["subject"],
                "annotations.destructiveHint",
            )
        )
    for read in observations.get("reads", []):
        found.extend(_read(read))
    for got in observations.get("prompt_gets", []):
        found.extend(_prompt(got))
    return found


def _finding(
    severity: Any, code: str, message: str, recommendation: str, subject: str, field: str, evidence: str = ""
) -> Finding:
    return Finding("runtime", severity, code, message, recommendation, subject, field, evidence)


def _no_answer(call: Mapping[str, Any], what: str, call_seconds: float) -> Finding | None:
    tool = call["tool"]
    args = json.dumps(call["arguments"], ensure_ascii=False)[:200]
    if call["outcome"] == "timeout":
        return _finding(
            "error",
            "tool_timeout",
            f"{what} got no answer within {call_seconds:g} s.",
            "Answer every call, or fail it with isError, within a bounded time; a hung call blocks the agent.",
            tool,
            "tools/call",
            f"arguments {args}",
        )
    if call["outcome"] == "failed":
        return _finding(
            "error",
            "tool_crashed",
            f"{what} broke the connection: {call['message']}",
            "Catch failures inside the tool and answer them as isError results.",
            tool,
            "tools/call",
            f"arguments {args}",
        )
    if call["outcome"] == "invalid":
        return _finding(
            "error",
            "invalid_result",
            f"{what} answered a result that is not valid MCP: {call['message']}",
            "Return a CallToolResult: a content list, optional structuredContent and isError.",
            tool,
            "result",
            f"arguments {args}",
        )
    return None


def _what_it_said(call: Mapping[str, Any]) -> str:
    """The tool's own words (its text blocks); the result's JSON when it had none, or for a check-up stored
    before the words were kept."""
    return str(call.get("said") or call.get("preview", ""))[:200]


def _valid_call(call: Mapping[str, Any], call_seconds: float) -> list[Finding]:
    tool, args = call["tool"], json.dumps(call["arguments"], ensure_ascii=False)[:200]
    if not call["arguments_valid"]:
        return [
            _finding(
                "info",
                "arguments_not_generated",
                "No arguments that fit the inputSchema could be made up, so the valid call was not judged.",
                "Give parameters examples or enums so clients (and models) can form a valid call.",
                tool,
                "inputSchema",
                f"arguments tried {args}",
            )
        ]
    if problem := _no_answer(call, "A call with valid arguments", call_seconds):
        return [problem]
    found: list[Finding] = []
    if call["outcome"] == "error":
        found.append(
            _finding(
                "warning" if call["code"] == mcp_types.INVALID_PARAMS else "error",
                "valid_call_rejected",
                f"Arguments that fit the inputSchema were answered with JSON-RPC error {call['code']}: "
                f"{call['message']}",
                "Accept every argument the inputSchema allows, or narrow the schema (enum, pattern, examples).",
                tool,
                "inputSchema",
                f"arguments {args}",
            )
        )
    elif call.get("is_error"):
        found.append(
            _finding(
                "warning",
                "valid_call_tool_error",
                f"Arguments that fit the inputSchema got a tool error: {_what_it_said(call)}",
                "Narrow the inputSchema to what the tool accepts (enum, pattern, examples), so models send it.",
                tool,
                "inputSchema",
                f"arguments {args}",
            )
        )
    else:
        validation = call.get("schema_validation")
        if validation and not validation["valid"]:
            found.append(
                _finding(
                    "error",
                    "output_schema_mismatch",
                    f"The result breaks the tool's outputSchema: {validation['message']}",
                    "Make structuredContent match the declared outputSchema (clients must reject it otherwise).",
                    tool,
                    "structuredContent",
                    f"arguments {args}",
                )
            )
    if call["duration_ms"] > SLOW_MS:
        found.append(
            _finding(
                "info",
                "slow_tool",
                f"A valid call took {call['duration_ms'] / 1000:.1f} s.",
                "Answer faster, or report progress, so agents do not time out waiting.",
                tool,
                "tools/call",
                f"{call['duration_ms']} ms",
            )
        )
    return found


def _invalid_call(call: Mapping[str, Any], call_seconds: float) -> list[Finding]:
    what = "a required field left out" if call["kind"] == "missing_required" else "a value of the wrong type"
    if problem := _no_answer(call, f"A call with {what}", call_seconds):
        return [problem]
    tool, args = call["tool"], json.dumps(call["arguments"], ensure_ascii=False)[:200]
    if call["outcome"] == "error" and call["code"] not in CLEAN_FAILURE:
        return [
            _finding(
                "warning",
                "invalid_call_wrong_code",
                f"A call with {what} was answered with JSON-RPC error {call['code']} ({call['message']}), "
                "not -32602 or a tool error.",
                "Validate arguments against the inputSchema and answer isError (or -32602) naming the field.",
                tool,
                "inputSchema",
                f"arguments {args}",
            )
        ]
    if call["outcome"] == "result" and not call.get("is_error"):
        return [
            _finding(
                "warning",
                "invalid_arguments_accepted",
                f"A call with {what} succeeded.",
                "Validate arguments against the inputSchema; a model that sent bad ones must learn it did.",
                tool,
                "inputSchema",
                f"arguments {args}",
            )
        ]
    return []


def _read(read: Mapping[str, Any]) -> list[Finding]:
    subject, template = read["uri"], read.get("template") or ""
    if read["outcome"] == "result":
        if read["contents"]:
            return []
        return [
            Finding(
                "runtime",
                "warning",
                "resource_empty",
                "The read answered no contents.",
                "Return at least one text or blob content for a resource that is listed.",
                subject,
                "contents",
            )
        ]
    failure = read["message"] or read["outcome"]
    if template and read["outcome"] in ("error", "invalid"):
        return [
            Finding(
                "runtime",
                "info",
                "template_read_failed",
                f"Reading the template with made-up parameters failed: {failure}",
                "Describe the template's parameters (a completion handler helps clients fill them).",
                template,
                "uriTemplate",
                f"read {subject}",
            )
        ]
    return [
        Finding(
            "runtime",
            "error",
            "resource_read_failed",
            f"Reading it failed ({read['outcome']}): {failure}",
            "Every resource resources/list offers must be readable.",
            template or subject,
            "resources/read",
            f"read {subject}",
        )
    ]


def _prompt(got: Mapping[str, Any]) -> list[Finding]:
    if got["outcome"] == "result":
        if got["messages"]:
            return []
        return [
            Finding(
                "runtime",
                "warning",
                "prompt_empty",
                "prompts/get answered no messages.",
                "A prompt should give at least one message.",
                got["prompt"],
                "messages",
            )
        ]
    made_up = bool(got["arguments"]) and got["outcome"] in ("error", "invalid")
    return [
        Finding(
            "runtime",
            "warning" if made_up else "error",
            "prompt_get_failed",
            f"prompts/get failed ({got['outcome']}): {got['message'] or got['outcome']}",
            "Every prompt prompts/list offers must be gettable with its required arguments.",
            got["prompt"],
            "prompts/get",
            f"arguments {json.dumps(got['arguments'], ensure_ascii=False)[:200]}",
        )
    ]
