"""mcptest's `faults:` block, an agent's `inject:` names and its `recovery:` gate, as the scenario's
`fault_injection` (runs/fault_injection/spec.py).

mcptest fault → EvalHub fault: `target.tool` → `tool` (none: every tool); `kind` hang, wedged, slow (`delay_ms`),
recover_after (`failures`, failing as hangs) carry over as they are. `target.server` naming another server than the
agent's makes the fault not apply. `recovery` {max_detection_ms, max_recovery_ms, require_clean_timeout} is the same.

One difference is reported: mcptest synthesizes a hang in virtual time, EvalHub waits the server's real request
timeout; for a hang to time out within max_detection_ms, that timeout must be at most it. A dangling `inject:`
name refuses the import (mcptest treats it as an infra error).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalhub.suites.mcptest.context import Context
from evalhub.suites.mcptest.expect import Note

RECOVERY_KEYS = ("max_detection_ms", "max_recovery_ms", "require_clean_timeout")
FAULT_KEYS = {"name", "target", "kind", "delay_ms", "failures"}


def agent_fault_injection(
    agent: Mapping[str, Any], faults: Any, server: str, pointer: str, context: Context
) -> dict[str, Any] | None:
    """The agent's fault injection, or None when it injects nothing and gates no recovery."""
    declared = {str(f.get("name")): (index, f) for index, f in enumerate(faults or []) if isinstance(f, Mapping)}
    chosen = []
    for position, name in enumerate(agent.get("inject") or []):
        if str(name) not in declared:
            context.problems.append((f"{pointer}/inject/{position}", f"no fault named {name!r} under faults"))
            continue
        index, fault = declared[str(name)]
        converted = _fault(fault, server, f"/faults/{index}", context)
        if converted is not None:
            chosen.append(converted)
    recovery = {key: agent["recovery"][key] for key in RECOVERY_KEYS if key in (agent.get("recovery") or {})}
    for key in set(agent.get("recovery") or {}) - set(RECOVERY_KEYS):
        context.unsupported(f"{pointer}/recovery/{key}", "not an mcptest recovery field")
    if not chosen and not recovery:
        return None
    if recovery.get("max_detection_ms") and any(f["kind"] in ("hang", "wedged", "recover_after") for f in chosen):
        reason = (
            "mcptest hangs in virtual time; EvalHub waits the server's request timeout: set it at most "
            f"{recovery['max_detection_ms']} ms for a hang to time out within max_detection_ms"
        )
        context.notes.append(Note(f"{pointer}/inject", "approximated", reason))
    return {"faults": chosen, "recovery": recovery} if recovery else {"faults": chosen}


def _fault(fault: Mapping[str, Any], server: str, pointer: str, context: Context) -> dict[str, Any] | None:
    target: Mapping[str, Any] = fault["target"] if isinstance(fault.get("target"), Mapping) else {}
    if target.get("server") not in (None, server):
        context.notes.append(
            Note(pointer, "approximated", f"targets server {target['server']!r}, not this agent's: not injected")
        )
        return None
    for key in set(fault) - FAULT_KEYS:
        context.unsupported(f"{pointer}/{key}", "not an mcptest fault field")
    converted: dict[str, Any] = {"name": str(fault.get("name")), "kind": fault.get("kind")}
    if target.get("tool"):
        converted["tool"] = str(target["tool"])
    for key in ("delay_ms", "failures"):
        if key in fault:
            converted[key] = fault[key]
    return converted
