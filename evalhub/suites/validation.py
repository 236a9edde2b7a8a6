"""`read_suite(text, filename)`: a suite file parsed and checked whole, or every problem with its file, line and
JSON pointer, and a suggestion when a name is close to a known one. Django-free.

    evals.yaml:14 /scenarios/2/expectations/0/args/latitude: unknown matcher "$rnage"; did you mean "$range"?

Messages never repeat a string value the file gave, so a secret pasted where a `${VAR}` belongs is not echoed back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from evalhub.storable import advice, storable, unstorable
from evalhub.suites.schema import suite_schema
from evalhub.suites.sections import SECTIONS
from evalhub.suites.source import Source, SourceError, escape, load
from runs.conversation.spec import validate_conversation
from runs.fault_injection.spec import plan_errors
from runs.primitive_request import primitive_request
from scorers.expectations import validate_expectations
from scorers.expectations.matchers import suggestion

_VALIDATOR = Draft202012Validator(suite_schema())


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    pointer: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where} {self.pointer or '/'}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "pointer": self.pointer, "message": self.message}


class InvalidSuite(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems


def read_suite(text: str, filename: str = "suite.yaml") -> tuple[dict[str, Any], Source]:
    """The suite's data and its source (for line numbers); raises InvalidSuite listing every problem."""
    try:
        source = load(text)
    except SourceError as error:
        raise InvalidSuite([Problem(filename, error.line, error.pointer, error.message)]) from None
    found = [(pointer, message) for pointer, message in problems_of(source.data)]
    if found:
        problems = [Problem(filename, source.line_of(p), p, m) for p, m in found]
        raise InvalidSuite(sorted(problems, key=lambda problem: (problem.line, _order(problem.pointer))))
    return source.data, source


def problems_of(data: Any) -> list[tuple[str, str]]:
    """(JSON pointer, message) for everything wrong with a suite's data, in file order."""
    if not isinstance(data, dict):
        return [("", "a suite file is a mapping of sections (servers, providers, scorers, scenarios)")]
    found = [item for error in _VALIDATOR.iter_errors(data) for item in schema_problems(error)]
    found += _duplicate_names(data)
    found += _engine_problems(data, "expectations", validate_expectations)
    found += _engine_problems(data, "conversation", validate_conversation)
    found += _engine_problems(data, "fault_injection", plan_errors)
    found += _level_problems(data)
    found += _unstorable(data, "")
    return sorted(set(found), key=lambda item: _order(item[0]))


def _order(pointer: str) -> list[Any]:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in pointer.split("/")]


def _is_expectations(path: Iterable[Any]) -> bool:
    parts = list(path)
    return len(parts) >= 3 and parts[0] == "scenarios" and parts[2] == "expectations"


def _pointer(path: Iterable[Any]) -> str:
    return "".join(f"/{escape(part)}" for part in path)


def schema_problems(error: ValidationError) -> list[tuple[str, str]]:
    """One JSON Schema error as (pointer, message) in words, never repeating a string value the file gave."""
    if _is_expectations(error.absolute_path):
        return []  # the expectations engine says it better (below)
    pointer = _pointer(error.absolute_path)
    keyword = error.validator
    if keyword == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        extra = [key for key in error.instance if key not in known]
        return [(f"{pointer}/{escape(key)}", f'unknown key "{key}"{suggestion(str(key), known)}') for key in extra]
    if keyword == "required":
        key = str(error.validator_value[0]) if len(error.validator_value) == 1 else ""
        missing = [k for k in error.validator_value if k not in error.instance] or [key]
        return [(pointer, f'missing required key "{name}"') for name in missing]
    if keyword == "enum":
        options = list(error.validator_value)
        hint = suggestion(error.instance, [str(o) for o in options]) if isinstance(error.instance, str) else ""
        return [(pointer, f"expected one of {', '.join(map(str, options))}{hint}")]
    if keyword == "const":
        value = error.validator_value
        return [(pointer, f"must be {str(value).lower() if isinstance(value, bool) else value}")]  # YAML's false
    if keyword == "type":
        return [(pointer, f"expected {_types(error.validator_value)}, got {_type_of(error.instance)}")]
    if keyword == "pattern":
        if "$" in str(error.validator_value):
            return [(pointer, "a secret is written only as a ${ENV_VAR} reference, never as its value")]
        return [(pointer, f"must match {error.validator_value}")]
    if keyword in ("minLength", "minItems") and error.validator_value == 1:
        return [(pointer, "must not be empty")]
    if keyword in ("minimum", "maximum", "exclusiveMinimum"):
        sign = {"minimum": "≥", "maximum": "≤", "exclusiveMinimum": ">"}[str(keyword)]
        return [(pointer, f"must be {sign} {error.validator_value}")]
    if keyword == "anyOf":
        # The branch of the instance's kind says what is wrong inside it; when no branch has its kind, name them.
        depth = len(error.absolute_path)
        inner = [e for e in error.context or [] if e.validator != "type" or len(e.absolute_path) > depth]
        if inner:
            return [item for sub in inner for item in schema_problems(sub)]
        kinds = [kind for branch in error.validator_value for kind in _listed(branch.get("type"))]
        return [(pointer, f"expected {_types(kinds)}, got {_type_of(error.instance)}")]
    if keyword == "uniqueItems":
        return [(pointer, "lists a name twice")]
    return [(pointer, error.message[:200])]


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if value else []


def _types(value: Any) -> str:
    names = value if isinstance(value, list) else [value]
    return " or ".join(
        {"object": "a mapping", "array": "a list", "null": "null"}.get(n, f"an {n}" if n[0] in "aeiou" else f"a {n}")
        for n in names
    )


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}.get(
        type(value), "a mapping"
    )


def _entries(data: dict[str, Any], key: str) -> list[Any]:
    """A section's entries; a section that is no list has none (the schema says what it should be)."""
    value = data.get(key)
    return value if isinstance(value, list) else []


def _duplicate_names(data: dict[str, Any]) -> list[tuple[str, str]]:
    found = []
    for key in SECTIONS:
        seen: dict[str, int] = {}
        for index, entry in enumerate(_entries(data, key)):
            name = entry.get("name") if isinstance(entry, dict) else None
            if isinstance(name, str):
                if name in seen:
                    found.append((f"/{key}/{index}/name", f'"{name}" is already the name of /{key}/{seen[name]}'))
                seen.setdefault(name, index)
    return found


_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def engine_path_to_pointer(path: str) -> str:
    """`expectations[0].args["x-y"]` (the engine's pointer) as the JSON pointer `/expectations/0/args/x-y`."""
    head = re.match(r"[A-Za-z_][A-Za-z0-9_]*", path)
    parts = [head.group(0)] if head else []
    for match in _STEP.finditer(path, head.end() if head else 0):
        name, index, quoted = match.groups()
        parts.append(name if name is not None else index if index is not None else str(json.loads(quoted)))
    return "".join(f"/{escape(part)}" for part in parts)


def _unstorable(value: Any, pointer: str) -> list[tuple[str, str]]:
    """Values the database cannot store (.nan, .inf, "\\0", "\\ud800"), as the API refuses them: applying would
    fail on them, or store a pass threshold no JSON answer can show."""
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            word = unstorable(key)
            # Such a key is shown as storable() writes it: the error itself must be storable and printable.
            child = f"{pointer}/{escape(storable(key)[0] if word else key)}"
            if word is not None:
                found.append((child, f"the key {advice(word)}"))
            found += _unstorable(item, child)
        return found
    if isinstance(value, list):
        return [item for index, entry in enumerate(value) for item in _unstorable(entry, f"{pointer}/{index}")]
    word = unstorable(value)
    return [(pointer, advice(word))] if word else []


def _level_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """An execution-level scenario calls its tool_call: it must have one; a resource or prompt one its primitive."""
    found = [
        (f"/scenarios/{index}/tool_call", "an execution-level scenario needs tool_call: {tool, arguments}")
        for index, scenario in enumerate(_entries(data, "scenarios"))
        if isinstance(scenario, dict) and scenario.get("level") == "execution" and not scenario.get("tool_call")
    ]
    for index, scenario in enumerate(_entries(data, "scenarios")):
        level = scenario.get("level") if isinstance(scenario, dict) else None
        if level not in ("resource", "prompt"):
            continue
        request = scenario.get("primitive")
        if not isinstance(request, dict):
            found.append(
                (
                    f"/scenarios/{index}/primitive",
                    f"a {level}-level scenario needs primitive: "
                    + ("{uri} or {template, arguments}" if level == "resource" else "{name, arguments}"),
                )
            )
            continue
        target = request.get("name") if level == "prompt" else (request.get("uri") or request.get("template"))
        try:
            primitive_request(level, target if isinstance(target, str) else "", request.get("arguments"))
        except ValueError as exc:
            found.append((f"/scenarios/{index}/primitive", str(exc)))
    return found


def _engine_problems(data: dict[str, Any], key: str, validate: Callable[[Any], list[str]]) -> list[tuple[str, str]]:
    """Problems the product's own validator finds in each scenario's `key` (its messages start with a path)."""
    found = []
    for index, scenario in enumerate(_entries(data, "scenarios")):
        if not isinstance(scenario, dict) or key not in scenario:
            continue
        for message in validate(scenario[key]):
            path, _, text = message.partition(": ")
            found.append((f"/scenarios/{index}{engine_path_to_pointer(path)}", text))
    return found
