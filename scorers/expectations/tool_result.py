"""`tool_result`: what one call of a tool returned, at a path of its CallToolResult, checked one way.

The path reads `{content: [...], structuredContent?, isError}` (see `paths` for the subset). Exactly one check:
`equals` (a value compared exactly; matchers allowed inside), `matches` (any expected value, objects compared on
the keys given), `contains` (see the `$contains` matcher), `regex`, or `json_schema`. A string is parsed as JSON
before `json_schema` checks it, since servers without structured output put their JSON in `content[0].text`. A
`transform` (jq) reshapes the value at the path before the check.
"""

from __future__ import annotations

import json
from typing import Any

from scorers.expectations.matchers import MatchMode, Mismatch, check_value, describe_value, regex_problem
from scorers.expectations.outcome import DiffEntry, Outcome, failed, passed
from scorers.expectations.paths import PathError, display_path, parse_path, resolve
from scorers.expectations.record import Call, RunRecord
from scorers.expectations.schema_checks import schema_problem, schema_violation
from scorers.expectations.spec import TOOL, Expectation, Kind, Param, call_param, in_turn, nth, ordinal, scoped
from scorers.expectations.targets import MATCHES, check_target, labelled, transformed
from scorers.expectations.transform import TRANSFORM, TransformError
from scorers.expectations.values import count, render

CHECKS = ("equals", "matches", "contains", "regex", "json_schema")


def _check(expectation: Expectation, where: str) -> list[str]:
    errors = []
    path = expectation.get("path", "$")
    if isinstance(path, str):
        try:
            parse_path(path)
        except PathError as error:
            errors.append(f"{where}.path: {error}")
    if isinstance(expectation.get("regex"), str) and (problem := regex_problem(expectation["regex"])):
        errors.append(f"{where}.regex: {problem}")
    if "json_schema" in expectation and (problem := schema_problem(expectation["json_schema"])):
        errors.append(f"{where}.json_schema: {problem}")
    return errors


def _path_label(expectation: Expectation) -> str:
    return display_path(parse_path(expectation.get("path", "$")))


def describe(expectation: Expectation) -> str:
    label = _path_label(expectation)
    if "transform" in expectation:
        label = f"{label} through {expectation['transform']}"
    if "equals" in expectation:
        check = ", ".join(describe_value(expectation["equals"], label))
    elif "matches" in expectation:
        check = ", ".join(describe_value(expectation["matches"], label))
    elif "contains" in expectation:
        check = f"{label} containing {render(expectation['contains'])}"
    elif "regex" in expectation:
        check = f"{label} matching {expectation['regex']}"
    else:
        check = f"{label} matching a JSON Schema"
    position = nth(expectation.get("call", "first")) or 1
    which = "" if position == 1 else f" on its {ordinal(position)} call"
    return scoped(expectation, f"{expectation['tool']} returned {check}{which}")


def _select(expectation: Expectation, record: RunRecord) -> tuple[Call | None, str]:
    tool = expectation["tool"]
    position = nth(expectation.get("call", "first")) or 1
    calls = [call for call in record.calls_in(expectation.get("turn")) if call.tool == tool]
    if position <= len(calls):
        return calls[position - 1], ""
    if not calls:
        return None, f"{tool} was never called{in_turn(expectation)}"
    return None, f"{tool} was called {count(len(calls), 'time')}, so it has no {ordinal(position)} call"


def _problems(expectation: Expectation, value: Any, label: str, record: RunRecord) -> list[str]:
    target = f"tool_result {expectation['tool']} {expectation.get('path', '$')}"
    if "equals" in expectation or "matches" in expectation:
        expected = expectation["equals"] if "equals" in expectation else expectation["matches"]
        mode: MatchMode = "exact" if "equals" in expectation else "partial"
        found = check_target(expected, value, expectation=expectation, record=record, base=target, mode=mode)
        return [labelled(label, mismatch) for mismatch in found]
    try:
        value = transformed(expectation, value)
    except TransformError as error:
        return [labelled(label, Mismatch("", str(error)))]
    if "contains" in expectation or "regex" in expectation:
        matcher = (
            {"$contains": expectation["contains"]} if "contains" in expectation else {"$regex": expectation["regex"]}
        )
        return [
            labelled(label, mismatch)
            for mismatch in check_target(matcher, value, expectation={}, record=record, base=target)
        ]
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [f"{label}: expected JSON text, got {render(value)}"]
    violation = schema_violation(expectation["json_schema"], value)
    return [f"{label}: {violation}"] if violation else []


def evaluate(expectation: Expectation, record: RunRecord) -> Outcome:
    expected = describe(expectation)
    call, missing = _select(expectation, record)
    if call is None:
        return failed(expected, missing, DiffEntry("missing_call", missing))
    label = _path_label(expectation)
    found, value = resolve(call.result, parse_path(expectation.get("path", "$")))
    if not found:
        actual = f"{call.label} returned no {label}"
        return failed(expected, actual, DiffEntry("result_mismatch", f"{label}: missing", call.index))
    actual = f"{call.label} returned {label} = {render(value)}"
    problems = _problems(expectation, value, label, record)
    if not problems:
        return passed(expected, actual)
    return failed(expected, actual, *(DiffEntry("result_mismatch", problem, call.index) for problem in problems))


KIND = Kind(
    name="tool_result",
    description="What a tool call returned, at a path of its result, equals/matches/contains a value or a schema.",
    params={
        "tool": TOOL,
        "call": call_param(allow_any=False),
        "path": Param(
            {"type": "string"},
            "a path like $.structuredContent.temperature",
            'Where in the CallToolResult: $ root, .key, [0], ["key"]; default $ (the whole result).',
        ),
        "equals": Param(
            {"$ref": "#/$defs/value"},
            "a JSON value",
            "The value, compared exactly (matchers allowed inside).",
            check=check_value,
        ),
        "matches": MATCHES,
        "contains": Param({}, "a JSON value", "Contained, as the $contains matcher: substring, element, subset."),
        "regex": Param({"type": "string"}, "a regular expression", "A regular expression searched in a string."),
        "json_schema": Param(
            {"type": ["object", "boolean"]}, "a JSON Schema", "A JSON Schema (2020-12) the value must satisfy."
        ),
        "transform": TRANSFORM,
    },
    evaluate=evaluate,
    describe=describe,
    required=("tool",),
    one_of=CHECKS,
    check=_check,
)
