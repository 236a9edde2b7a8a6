"""An experiment's fault profiles: named fault injections, each a column of the matrix for every model, so "how does
each model cope when search_flights is slow" is one experiment. Pure.

A profile is `{"name": "slow search", "fault_injection": {...}}` (runs/fault_injection/spec.py); it replaces each
scenario's own fault injection in its column, whole (faults, recovery and seed). `{"name": "no faults",
"fault_injection": {}}` is the baseline column: the server as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runs.fault_injection.spec import PLACE, plan_errors

MAX_PROFILES = 10


@dataclass(frozen=True)
class FaultProfile:
    name: str
    fault_injection: dict[str, Any]


def parse_profiles(value: Any) -> tuple[list[FaultProfile], list[str]]:
    """The profiles in `value` (a list), and what is wrong with it (each error names its place)."""
    if value in (None, []):
        return [], []
    if not isinstance(value, list):
        return [], ["fault_profiles: must be a list of {name, fault_injection}"]
    if len(value) > MAX_PROFILES:
        return [], [f"fault_profiles: at most {MAX_PROFILES} profiles, got {len(value)}"]
    profiles, errors = [], []
    for index, raw in enumerate(value):
        where = f"fault_profiles[{index}]"
        if not isinstance(raw, dict) or set(raw) - {"name", PLACE}:
            errors.append(f"{where}: must be an object with only `name` and `{PLACE}`")
            continue
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 60:
            errors.append(f"{where}.name: must be a non-empty text of at most 60 characters")
            continue
        injection = raw.get(PLACE) or {}
        problems = plan_errors(injection)
        errors += [f"{where}.{problem}" for problem in problems]
        if not problems:
            profiles.append(FaultProfile(name.strip(), dict(injection)))
    names = [profile.name for profile in profiles]
    errors += [
        f"fault_profiles: the name {n!r} is used twice" for n in sorted({n for n in names if names.count(n) > 1})
    ]
    return (profiles, []) if not errors else ([], errors)
