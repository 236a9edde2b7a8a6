"""The fault timeline of a run and its recovery expectations, from what the run recorded. Pure (no Django).

`fault_timeline` lists each tool call that got a fault (its `injectedFault`): when it began (ms from the run's
start), how long until the agent had an answer, and what the agent did next — the model call that followed
(retried the tool, called another, answered the user) or nothing (the run ended).

`evaluate_recovery` checks the scenario's `recovery` against it:
- max_detection_ms: for every faulted call, the agent acted (the model call after the faulted answer finished)
  within this many ms of the call's start;
- max_recovery_ms: a call that succeeded ended within this many ms of the first fault's start;
- require_clean_timeout: every hung call ended with the timeout error (within max_detection_ms when set), not cut
  off by the run's end;
- require_told_user: the final answer says something went wrong (`told_user_pattern`).
A run in which no fault fired passes them, saying so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from runs.fault_injection.spec import Recovery

OUTCOMES = {"hang": "timed out", "error": "answered an error", "drop": "connection dropped"}


@dataclass(frozen=True)
class RecoveryCheck:
    name: str
    passed: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "reason": self.reason}


@dataclass(frozen=True)
class RecoveryResult:
    checks: tuple[RecoveryCheck, ...]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def score(self) -> float:
        return sum(check.passed for check in self.checks) / len(self.checks) if self.checks else 1.0

    @property
    def reason(self) -> str:
        failed = [check for check in self.checks if not check.passed]
        if not failed:
            return f"The agent coped with the injected faults ({len(self.checks)} of {len(self.checks)} checks)."
        return "; ".join(check.reason for check in failed)


def fault_timeline(
    *, calls: list[dict[str, Any]], model_calls: list[dict[str, Any]], steps: list[dict[str, Any]], started_ms: int
) -> list[dict[str, Any]]:
    """One entry per faulted tool call, in call order (see the module docstring)."""
    entries = []
    for index, call in enumerate(calls, start=1):
        fault = call.get("injectedFault")
        if not isinstance(fault, dict):
            continue
        begin = int(call.get("timestamp") or started_ms)
        end = begin + int(call.get("durationMs") or 0)
        entry: dict[str, Any] = {
            "call": index,
            "tool": call.get("toolName", ""),
            "fault": fault.get("name", ""),
            "kind": fault.get("kind", ""),
            "effect": fault.get("effect", ""),
            "at_ms": max(0, begin - started_ms),
            "duration_ms": end - begin,
            "outcome": _outcome(call, str(fault.get("effect", ""))),
            "cut_off": bool(call.get("cancelled")),
            "next": "nothing: the run ended",
            "acted_ms": None,
        }
        following = _next_model_call(model_calls, end)
        if following is not None:
            finished = int(following["timestamp"]) + int(following.get("latency_ms") or 0)
            entry["acted_ms"] = finished - begin
            entry["next"] = _decision(following, steps, str(entry["tool"]))
        entries.append(entry)
    return entries


def evaluate_recovery(
    recovery: Recovery, *, timeline: list[dict[str, Any]], calls: list[dict[str, Any]], final_text: str
) -> RecoveryResult:
    checks = []
    none = "no fault was injected in this run"
    if recovery.max_detection_ms is not None:
        limit = recovery.max_detection_ms
        late = [entry for entry in timeline if entry["acted_ms"] is None or entry["acted_ms"] > limit]
        if not timeline:
            checks.append(RecoveryCheck("max_detection_ms", True, none))
        elif late:
            entry = late[0]
            acted = "never acted" if entry["acted_ms"] is None else f"acted only after {entry['acted_ms']} ms"
            checks.append(
                RecoveryCheck(
                    "max_detection_ms",
                    False,
                    f"after the {entry['kind']} on call {entry['call']} ({entry['tool']}) the agent {acted} "
                    f"(limit {limit} ms)",
                )
            )
        else:
            slowest = max(entry["acted_ms"] for entry in timeline)
            checks.append(
                RecoveryCheck("max_detection_ms", True, f"the agent acted within {slowest} ms (limit {limit} ms)")
            )
    if recovery.max_recovery_ms is not None:
        checks.append(_recovery_check(recovery.max_recovery_ms, timeline, calls, none))
    if recovery.require_clean_timeout:
        checks.append(_clean_timeout_check(recovery.max_detection_ms, timeline))
    if recovery.require_told_user:
        told = bool(final_text.strip()) and re.search(recovery.told_user_pattern, final_text) is not None
        if not timeline:
            checks.append(RecoveryCheck("require_told_user", True, none))
        elif told:
            checks.append(RecoveryCheck("require_told_user", True, "the final answer tells the user what went wrong"))
        else:
            what = "the run has no final answer" if not final_text.strip() else "the final answer does not say so"
            checks.append(RecoveryCheck("require_told_user", False, f"the agent did not tell the user: {what}"))
    return RecoveryResult(tuple(checks))


def _recovery_check(
    limit: int, timeline: list[dict[str, Any]], calls: list[dict[str, Any]], none: str
) -> RecoveryCheck:
    if not timeline:
        return RecoveryCheck("max_recovery_ms", True, none)
    first = timeline[0]
    begin = int(calls[first["call"] - 1].get("timestamp") or 0)
    for call in calls[first["call"] - 1 :]:
        if not call.get("isError") and not call.get("cancelled"):
            took = int(call.get("timestamp") or 0) + int(call.get("durationMs") or 0) - begin
            if took <= limit:
                return RecoveryCheck(
                    "max_recovery_ms", True, f"{call.get('toolName')} succeeded {took} ms after the first fault"
                )
            return RecoveryCheck(
                "max_recovery_ms",
                False,
                f"the first call that succeeded ({call.get('toolName')}) ended {took} ms after the first fault "
                f"(limit {limit} ms)",
            )
    return RecoveryCheck("max_recovery_ms", False, "no call succeeded after the first fault: the agent never recovered")


def _clean_timeout_check(limit: int | None, timeline: list[dict[str, Any]]) -> RecoveryCheck:
    hung = [entry for entry in timeline if entry["effect"] == "hang"]
    if not hung:
        return RecoveryCheck("require_clean_timeout", True, "no call hung in this run")
    for entry in hung:
        if entry["cut_off"] or entry["outcome"] != "timed out":
            return RecoveryCheck(
                "require_clean_timeout", False, f"the hung call {entry['call']} ({entry['tool']}) never timed out"
            )
        if limit is not None and entry["duration_ms"] > limit:
            return RecoveryCheck(
                "require_clean_timeout",
                False,
                f"the hung call {entry['call']} ({entry['tool']}) timed out after {entry['duration_ms']} ms, "
                f"past the {limit} ms detection limit: lower the server's request timeout",
            )
    return RecoveryCheck("require_clean_timeout", True, f"every hung call ({len(hung)}) timed out cleanly")


def _outcome(call: dict[str, Any], effect: str) -> str:
    if call.get("cancelled"):
        return "cut off"
    if effect == "slow":
        return "answered an error late" if call.get("isError") else "answered late"
    return OUTCOMES.get(effect, "answered an error")


def _next_model_call(model_calls: list[dict[str, Any]], after_ms: int) -> dict[str, Any] | None:
    # Times are whole ms from two clocks' roundings: a model call that began within 5 ms counts as after.
    timed = [call for call in model_calls if isinstance(call.get("timestamp"), int)]
    return next((call for call in timed if call["timestamp"] >= after_ms - 5), None)


def _decision(model_call: dict[str, Any], steps: list[dict[str, Any]], tool: str) -> str:
    index = int(model_call.get("step") or 0) - 1
    step = steps[index] if 0 <= index < len(steps) else {}
    names = [str(entry.get("toolName", "")) for entry in step.get("toolCalls", [])]
    if not names:
        return "answered the user"
    if tool in names:
        return f"retried {tool}" + (
            f" (and called {', '.join(n for n in names if n != tool)})" if len(names) > 1 else ""
        )
    return f"called {', '.join(names)}"
