"""A scenario's (or an experiment column's) fault injection, read and validated: `parse_plan(value) -> FaultPlan`.

The stored form (`Scenario.fault_injection`, copied into a run's settings) is JSON:

    {"faults": [{"name": "slow search", "tool": "search_flights", "kind": "slow", "delay_ms": 3000}],
     "recovery": {"max_detection_ms": 5000, "max_recovery_ms": 8000, "require_clean_timeout": true,
                  "require_told_user": true},
     "seed": 7}

A fault: `kind` (KINDS), `tool` (a tool's name; omitted or "*" for every tool), and when it fires — on every
matching call, only on the `on_call`-th, or on each with `probability` (drawn from a RNG seeded by `seed` and the
trial, so a run is reproducible). Per kind: `delay_ms` (slow), `message`, `as` ("result": an isError result, or
"jsonrpc": a JSON-RPC error) and `code` (error), `failures` and `fail_as` (recover_after: the first `failures`
matching calls fail so, then the real tool answers). Pure: no Django, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

KINDS = ("hang", "slow", "error", "wedged", "drop", "recover_after")
# What a recover_after's failing calls do.
FAIL_AS = ("hang", "error", "drop")
ERROR_FORMS = ("result", "jsonrpc")
ALL_TOOLS = "*"
# The JSON-RPC "internal error" code, what a server that fails a request usually sends.
DEFAULT_ERROR_CODE = -32603
DEFAULT_ERROR_MESSAGE = "Internal error"
# Words an answer that tells the user about the failure uses ("the agent told the user").
DEFAULT_TOLD_USER_PATTERN = (
    r"(?i)\b(error|fail|unavailable|time[sd]?[ -]?out|not respond|unable|could not|couldn't|can't|cannot|"
    r"try again|problem|issue|down|slow)"
)
MAX_FAULTS = 20
# Where errors say the problem is: the field's name on scenarios, in the API and in suite files.
PLACE = "fault_injection"
# What the scenario form and the API say of the field.
FAULT_INJECTION_HELP = (
    'Empty: the server as it is. Else {"faults": [{name, tool ("*" or left out: every tool), kind: hang | slow '
    "(delay_ms) | error (message, as: result | jsonrpc, code) | wedged | drop | recover_after (failures, fail_as), "
    'on_call: N or probability: 0-1}], "recovery": {max_detection_ms, max_recovery_ms, require_clean_timeout, '
    'require_told_user}, "seed": 0}. A call an injected fault failed blames neither the server nor the agent; '
    "the recovery expectations gate the run as one check, “Fault recovery”."
)
MAX_DELAY_MS = 600_000


class InvalidFaults(ValueError):
    """The fault injection does not validate; each error names its place (`faults[0].delay_ms`)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = tuple(errors)


@dataclass(frozen=True)
class Fault:
    name: str
    kind: str
    tool: str = ALL_TOOLS
    on_call: int | None = None
    probability: float | None = None
    delay_ms: int = 0
    message: str = DEFAULT_ERROR_MESSAGE
    error_as: str = "result"
    code: int = DEFAULT_ERROR_CODE
    failures: int = 0
    fail_as: str = "hang"

    def matches(self, tool: str) -> bool:
        return self.tool in (ALL_TOOLS, tool)

    @property
    def target(self) -> str:
        return "every tool" if self.tool == ALL_TOOLS else self.tool


@dataclass(frozen=True)
class Recovery:
    max_detection_ms: int | None = None
    max_recovery_ms: int | None = None
    require_clean_timeout: bool = False
    require_told_user: bool = False
    told_user_pattern: str = DEFAULT_TOLD_USER_PATTERN

    @property
    def is_set(self) -> bool:
        return (
            self.max_detection_ms is not None
            or self.max_recovery_ms is not None
            or self.require_clean_timeout
            or self.require_told_user
        )


@dataclass(frozen=True)
class FaultPlan:
    faults: tuple[Fault, ...] = ()
    recovery: Recovery = field(default_factory=Recovery)
    seed: int = 0

    @property
    def is_empty(self) -> bool:
        return not self.faults and not self.recovery.is_set


def parse_plan(value: Any) -> FaultPlan:
    """The plan in `value` (None or {} for none); raises InvalidFaults listing every problem."""
    if value in (None, {}):
        return FaultPlan()
    errors: list[str] = []
    if not isinstance(value, dict):
        raise InvalidFaults(["fault_injection: must be a JSON object with `faults` and optionally `recovery`"])
    _unknown(value, {"faults", "recovery", "seed"}, PLACE, errors)
    raw_faults = value.get("faults", [])
    faults: list[Fault] = []
    if not isinstance(raw_faults, list):
        errors.append(f"{PLACE}.faults: must be a list of faults")
    elif len(raw_faults) > MAX_FAULTS:
        errors.append(f"{PLACE}.faults: at most {MAX_FAULTS} faults, got {len(raw_faults)}")
    else:
        for index, raw in enumerate(raw_faults):
            fault = _fault(raw, f"{PLACE}.faults[{index}]", errors)
            if fault is not None:
                faults.append(fault)
        names = [fault.name for fault in faults]
        for name in sorted({name for name in names if names.count(name) > 1}):
            errors.append(f"{PLACE}.faults: the name {name!r} is used twice; give each fault its own name")
    recovery = _recovery(value.get("recovery", {}), errors)
    seed = value.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        errors.append(f"{PLACE}.seed: must be a whole number")
        seed = 0
    if errors:
        raise InvalidFaults(errors)
    return FaultPlan(tuple(faults), recovery, seed)


def plan_errors(value: Any) -> list[str]:
    """What is wrong with `value` as a fault injection (empty when it is valid): for forms and the API."""
    try:
        parse_plan(value)
    except InvalidFaults as exc:
        return list(exc.errors)
    return []


def _fault(raw: Any, where: str, errors: list[str]) -> Fault | None:
    if not isinstance(raw, dict):
        errors.append(f"{where}: must be an object with a `kind`")
        return None
    allowed = {"name", "kind", "tool", "on_call", "probability", "delay_ms", "message", "as", "code"}
    allowed |= {"failures", "fail_as"}
    _unknown(raw, allowed, where, errors)
    before = len(errors)
    kind = raw.get("kind")
    if kind not in KINDS:
        errors.append(f"{where}.kind: must be one of {', '.join(KINDS)}, got {kind!r}")
    tool = raw.get("tool", ALL_TOOLS)
    if not isinstance(tool, str) or not tool.strip():
        errors.append(f'{where}.tool: must be a tool\'s name, or "*" (or left out) for every tool')
    on_call = _optional_int(raw, "on_call", where, errors, low=1, high=10_000)
    probability = raw.get("probability")
    if probability is not None and (
        isinstance(probability, bool) or not isinstance(probability, int | float) or not 0 <= probability <= 1
    ):
        errors.append(f"{where}.probability: must be a number from 0 to 1, got {probability!r}")
    if on_call is not None and probability is not None:
        errors.append(f"{where}: give `on_call` or `probability`, not both")
    delay_ms = _optional_int(raw, "delay_ms", where, errors, low=1, high=MAX_DELAY_MS)
    if kind == "slow" and delay_ms is None:
        errors.append(f"{where}.delay_ms: a slow fault needs the delay in milliseconds (1 to {MAX_DELAY_MS})")
    failures = _optional_int(raw, "failures", where, errors, low=1, high=1000)
    if kind == "recover_after":
        if failures is None:
            errors.append(f"{where}.failures: recover_after needs how many calls fail before the tool answers")
        if on_call is not None or probability is not None:
            errors.append(f"{where}: recover_after fails the first `failures` calls; it takes no on_call/probability")
    fail_as = raw.get("fail_as", "hang")
    if fail_as not in FAIL_AS:
        errors.append(f"{where}.fail_as: must be one of {', '.join(FAIL_AS)}, got {fail_as!r}")
    error_as = raw.get("as", "result")
    if error_as not in ERROR_FORMS:
        errors.append(f'{where}.as: must be "result" (an isError result) or "jsonrpc" (a JSON-RPC error)')
    message = raw.get("message", DEFAULT_ERROR_MESSAGE)
    if not isinstance(message, str) or not message.strip() or len(message) > 2000:
        errors.append(f"{where}.message: must be a non-empty text of at most 2000 characters")
    code = _optional_int(raw, "code", where, errors, low=-(2**31), high=2**31 - 1)
    name = raw.get("name", f"{kind} {tool}" if isinstance(kind, str) and isinstance(tool, str) else "")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        errors.append(f"{where}.name: must be a non-empty text of at most 100 characters")
    if len(errors) > before:
        return None
    return Fault(
        name=name.strip(),
        kind=str(kind),
        tool=tool.strip(),
        on_call=on_call,
        probability=float(probability) if probability is not None else None,
        delay_ms=delay_ms or 0,
        message=message,
        error_as=error_as,
        code=code if code is not None else DEFAULT_ERROR_CODE,
        failures=failures or 0,
        fail_as=fail_as,
    )


def _recovery(raw: Any, errors: list[str]) -> Recovery:
    if not isinstance(raw, dict):
        errors.append(f"{PLACE}.recovery: must be an object")
        return Recovery()
    fields = {"max_detection_ms", "max_recovery_ms", "require_clean_timeout", "require_told_user"}
    _unknown(raw, fields | {"told_user_pattern"}, f"{PLACE}.recovery", errors)
    detection = _optional_int(raw, "max_detection_ms", f"{PLACE}.recovery", errors, low=1, high=3_600_000)
    recovery = _optional_int(raw, "max_recovery_ms", f"{PLACE}.recovery", errors, low=1, high=3_600_000)
    flags = {}
    for name in ("require_clean_timeout", "require_told_user"):
        flags[name] = raw.get(name, False)
        if not isinstance(flags[name], bool):
            errors.append(f"{PLACE}.recovery.{name}: must be true or false")
            flags[name] = False
    pattern = raw.get("told_user_pattern", DEFAULT_TOLD_USER_PATTERN)
    try:
        re.compile(pattern)
    except (re.error, TypeError) as exc:
        errors.append(f"{PLACE}.recovery.told_user_pattern: not a valid regular expression ({exc})")
        pattern = DEFAULT_TOLD_USER_PATTERN
    return Recovery(detection, recovery, flags["require_clean_timeout"], flags["require_told_user"], pattern)


def _optional_int(raw: dict[str, Any], key: str, where: str, errors: list[str], *, low: int, high: int) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        errors.append(f"{where}.{key}: must be a whole number from {low} to {high}, got {value!r}")
        return None
    return value


def _unknown(raw: dict[str, Any], allowed: set[str], where: str, errors: list[str]) -> None:
    for key in sorted(set(raw) - allowed):
        errors.append(f"{where}: unknown field {key!r} (allowed: {', '.join(sorted(allowed))})")
