"""Talking to the server for a check-up: one connection, every request bounded by `call_seconds`, so a server that
hangs gives a finding, not a hang. No Django: it returns plain observations that compliance.py, sweep.py and
static.py judge.

Order: the handshake (by `connect_sync`), every list page by page (pagination is checked here, on the raw
cursors), ping and the deliberate bad requests, then the sweep: each tool (a valid call, then the invalid ones;
not the invalid ones after the valid one hung, which would only hang again), each resource, template and prompt.
Destructive-looking tools (evalhub.server_evals.destructive) are called only when `allow_destructive`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from evalhub.checkups import arguments as made_up
from evalhub.checkups.compliance import LISTS, MAX_PAGES
from evalhub.checkups.sweep import call_facts
from evalhub.mcp_client import ServerConfig
from evalhub.mcp_client.raw import RawAnswer
from evalhub.mcp_client.sync import SyncConnection, connect_sync
from evalhub.server_evals.destructive import looks_destructive

# Bounds on how much one check-up exercises: a server listing 10,000 tools is swept in part, and says so.
MAX_TOOLS = 100
MAX_READS = 100
MAX_PROMPTS = 50
UNKNOWN_METHOD = "evalhub/no-such-method"
UNKNOWN_TOOL = "evalhub_no_such_tool_0f3a"
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ProbeOptions:
    call_seconds: float
    allow_destructive: bool = False
    progress: Progress | None = None


def probe(config: ServerConfig, options: ProbeOptions) -> dict[str, Any]:
    """Observations of one server (see the module docstring). Raises McpConnectionError when it cannot be reached."""
    started = time.monotonic()
    with connect_sync(config) as conn:
        handshake_ms = round((time.monotonic() - started) * 1000)
        info = conn.info
        observations: dict[str, Any] = {
            "server": {
                "name": info.name,
                "version": info.version,
                "title": info.title,
                "protocol_version": info.protocol_version,
                "capabilities": info.capabilities,
                "instructions": info.instructions,
            },
            "transport": config.transport,
            "handshake_ms": handshake_ms,
            "call_seconds": options.call_seconds,
        }
        session = _Session(conn, options)
        session.tell("compliance", 0, 1)
        observations["lists"] = {
            key: session.list_all(method, item_key, name) for key, method, _, item_key, name in LISTS
        }
        if "evals" in info.capabilities:
            observations["lists"]["evals"] = session.list_all("evals/list", "evals", "id")
        observations["probes"] = {
            # The 2026 protocol has no ping: asked only of a session that negotiated an earlier version.
            "ping": session.ask("ping", None).to_dict()
            if info.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
            else None,
            "unknown_method": session.ask(UNKNOWN_METHOD, {}).to_dict(),
            "bad_params": session.ask("tools/call", {"arguments": {}}).to_dict(),
            "unknown_tool": session.ask("tools/call", {"name": UNKNOWN_TOOL, "arguments": {}}).to_dict(),
        }
        session.sweep(observations)
        observations["notifications"] = conn.notifications
        observations["warnings"] = conn.warnings
        observations["stderr_tail"] = conn.stderr_tail
    observations["duration_ms"] = round((time.monotonic() - started) * 1000)
    return observations


class _Session:
    def __init__(self, conn: SyncConnection, options: ProbeOptions) -> None:
        self.conn = conn
        self.options = options

    def tell(self, stage: str, done: int, total: int) -> None:
        if self.options.progress is not None:
            self.options.progress(stage, done, total)

    def ask(self, method: str, params: dict[str, Any] | None) -> RawAnswer:
        return self.conn.raw_request(method, params, timeout=self.options.call_seconds)

    def list_all(self, method: str, item_key: str, name_key: str) -> dict[str, Any]:
        """Every page of a list, following cursors as sent: the items (each once), how many pages, items seen
        twice, a cursor problem ("loop" or "endless"), or the answer that ended it (`failure`)."""
        items: dict[str, Any] = {}
        duplicates: list[str] = []
        seen_cursors: set[str] = set()
        listed: dict[str, Any] = {"method": method, "pages": 0, "cursor_problem": "", "failure": None}
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            answer = self.ask(method, {"cursor": cursor} if cursor else {})
            listed["pages"] += 1
            page = (answer.result or {}).get(item_key)
            if not answer.ok or not isinstance(page, list):
                listed["failure"] = answer.to_dict() if not answer.ok else {**answer.to_dict(), "outcome": "invalid"}
                break
            for item in page:
                name = str(item.get(name_key, "")) if isinstance(item, Mapping) else repr(item)
                if name in items:
                    duplicates.append(name)
                else:
                    items[name] = item
            cursor = (answer.result or {}).get("nextCursor") or None
            if cursor is None:
                break
            if cursor in seen_cursors:
                listed.update(cursor_problem="loop", repeated_cursor=cursor)
                break
            seen_cursors.add(cursor)
        else:
            listed["cursor_problem"] = "endless"
        listed["items"] = list(items.values())
        listed["duplicates"] = sorted(set(duplicates)) if not listed["cursor_problem"] else []
        return listed

    def sweep(self, observations: dict[str, Any]) -> None:
        lists = observations["lists"]
        tools = [t for t in lists["tools"]["items"] if isinstance(t, Mapping)][:MAX_TOOLS]
        resources = [r for r in lists["resources"]["items"] if isinstance(r, Mapping)][:MAX_READS]
        templates = [t for t in lists["resource_templates"]["items"] if isinstance(t, Mapping)][:MAX_READS]
        prompts = [p for p in lists["prompts"]["items"] if isinstance(p, Mapping)][:MAX_PROMPTS]
        total = len(tools) + len(resources) + len(templates) + len(prompts)
        calls: list[dict[str, Any]] = []
        skipped: list[dict[str, str]] = []
        for done, tool in enumerate(tools):
            self.tell("runtime", done, total)
            if not self.options.allow_destructive and looks_destructive(tool):
                reason = "the tool looks destructive and side effects are not acknowledged for this server."
                skipped.append({"subject": str(tool.get("name", "")), "reason": reason})
                continue
            calls.extend(self.exercise(tool))
        reads: list[dict[str, Any]] = []
        for done, resource in enumerate(resources, start=len(tools)):
            self.tell("runtime", done, total)
            reads.append(self.read(str(resource.get("uri", "")), ""))
        for done, template in enumerate(templates, start=len(tools) + len(resources)):
            self.tell("runtime", done, total)
            pattern = str(template.get("uriTemplate", ""))
            reads.append(self.read(made_up.expand_template(pattern), pattern))
        gets: list[dict[str, Any]] = []
        for done, prompt in enumerate(prompts, start=total - len(prompts)):
            self.tell("runtime", done, total)
            arguments = made_up.prompt_arguments(prompt)
            answer = self.ask("prompts/get", {"name": prompt.get("name"), "arguments": arguments})
            messages = (answer.result or {}).get("messages")
            gets.append(
                {
                    "prompt": str(prompt.get("name", "")),
                    "arguments": arguments,
                    "outcome": answer.outcome,
                    "code": answer.code,
                    "message": answer.message[:300],
                    "duration_ms": answer.duration_ms,
                    "messages": len(messages) if isinstance(messages, list) else 0,
                }
            )
        self.tell("runtime", total, total)
        observations.update(calls=calls, skipped=skipped, reads=reads, prompt_gets=gets)

    def exercise(self, tool: Mapping[str, Any]) -> list[dict[str, Any]]:
        schema = tool.get("inputSchema")
        valid = made_up.valid_arguments(schema)
        answer = self.call(tool, valid)
        facts = [call_facts(tool, "valid", valid, made_up.is_valid(schema, valid), answer)]
        if answer.outcome in ("timeout", "failed"):
            return facts
        for kind, arguments in made_up.invalid_variants(schema, valid).items():
            facts.append(call_facts(tool, kind, arguments, False, self.call(tool, arguments)))
        return facts

    def call(self, tool: Mapping[str, Any], arguments: dict[str, Any]) -> RawAnswer:
        return self.ask("tools/call", {"name": tool.get("name"), "arguments": arguments})

    def read(self, uri: str, template: str) -> dict[str, Any]:
        answer = self.ask("resources/read", {"uri": uri})
        contents = (answer.result or {}).get("contents")
        contents = contents if isinstance(contents, list) else []
        return {
            "uri": uri,
            "template": template,
            "outcome": answer.outcome,
            "code": answer.code,
            "message": answer.message[:300],
            "duration_ms": answer.duration_ms,
            "contents": len(contents),
            "mime_types": sorted({str(c.get("mimeType")) for c in contents if isinstance(c, Mapping)}),
        }
