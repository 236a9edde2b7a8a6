"""`final_answer`: the agent's final text, checked one way.

`equals` and `starts_with` ignore surrounding whitespace, which models add and nobody means. `matches` takes any
expected value (`{"$levenshtein": …}`, `{"$not": …}`, …) and reads the text as it is. A `transform` (jq) reshapes
the text first; the text checks then read a result that is not a string as its JSON text. In a run that records
user turns, `turn` checks that turn's last text instead of the final one.
"""

from __future__ import annotations

import json
import re

from scorers.expectations.matchers import describe_value, regex_problem
from scorers.expectations.matchers.distance import text_of
from scorers.expectations.outcome import DiffEntry, Outcome, failed, passed
from scorers.expectations.record import RunRecord
from scorers.expectations.schema_checks import schema_problem, schema_violation
from scorers.expectations.spec import Expectation, Kind, Param, scoped
from scorers.expectations.targets import MATCHES, check_target, labelled, transformed
from scorers.expectations.transform import TRANSFORM, TransformError
from scorers.expectations.values import render

_TEXT = {"type": "string"}
PARAMS = {
    "contains": Param(_TEXT, "a string", "The answer contains this text."),
    "icontains": Param(_TEXT, "a string", "The answer contains this text, ignoring case."),
    "not_contains": Param(_TEXT, "a string", "The answer does not contain this text."),
    "regex": Param(_TEXT, "a regular expression", "A regular expression found in the answer."),
    "equals": Param(_TEXT, "a string", "The whole answer, surrounding whitespace aside."),
    "starts_with": Param(_TEXT, "a string", "How the answer begins, leading whitespace aside."),
    "is_json": Param({"const": True}, "true", "The answer is JSON."),
    "json_schema": Param({"type": ["object", "boolean"]}, "a JSON Schema", "The answer is JSON matching this schema."),
    "matches": MATCHES,
}
CHECKS = tuple(PARAMS)


def _check(expectation: Expectation, where: str) -> list[str]:
    if isinstance(expectation.get("regex"), str) and (problem := regex_problem(expectation["regex"])):
        return [f"{where}.regex: {problem}"]
    if "json_schema" in expectation and (problem := schema_problem(expectation["json_schema"])):
        return [f"{where}.json_schema: {problem}"]
    return []


def describe(expectation: Expectation) -> str:
    if "contains" in expectation:
        check = f"contains {render(expectation['contains'])}"
    elif "icontains" in expectation:
        check = f"contains {render(expectation['icontains'])} in any case"
    elif "not_contains" in expectation:
        check = f"does not contain {render(expectation['not_contains'])}"
    elif "regex" in expectation:
        check = f"matches {expectation['regex']}"
    elif "equals" in expectation:
        check = f"equals {render(expectation['equals'])}"
    elif "starts_with" in expectation:
        check = f"starts with {render(expectation['starts_with'])}"
    elif "is_json" in expectation:
        check = "is JSON"
    elif "json_schema" in expectation:
        check = "is JSON matching a schema"
    else:
        check = ", ".join(describe_value(expectation["matches"]))
    through = f" (through {expectation['transform']})" if expectation.get("transform") else ""
    return scoped(expectation, f"final answer{through} {check}")


def _problem(expectation: Expectation, text: str) -> str | None:
    """Why the answer fails the check, or None."""
    try:
        text = text_of(transformed(expectation, text))
    except TransformError as error:
        return str(error)
    if "contains" in expectation:
        return None if expectation["contains"] in text else f"answer does not contain {render(expectation['contains'])}"
    if "icontains" in expectation:
        needle = expectation["icontains"]
        return None if needle.casefold() in text.casefold() else f"answer does not contain {render(needle)} in any case"
    if "not_contains" in expectation:
        needle = expectation["not_contains"]
        return f"answer contains {render(needle)}" if needle in text else None
    if "regex" in expectation:
        return None if re.search(expectation["regex"], text) else f"answer does not match {expectation['regex']}"
    if "equals" in expectation:
        wanted = expectation["equals"].strip()
        return None if text.strip() == wanted else f"answer is {render(text.strip())}, expected {render(wanted)}"
    if "starts_with" in expectation:
        prefix, answer = expectation["starts_with"].strip(), text.strip()
        if answer.startswith(prefix):
            return None
        # As much of the answer as the prefix, and a little more, is what a reader compares.
        start = answer[: len(prefix) + 10]
        start = start.rstrip() + "…" if len(answer) > len(start) else start
        return f"answer starts with {render(start)}, expected {render(prefix)}"
    try:
        document = json.loads(text)
    except ValueError as error:
        return f"answer is not JSON: {error}"
    if "json_schema" not in expectation:
        return None
    violation = schema_violation(expectation["json_schema"], document)
    return f"answer JSON does not match the schema: {violation}" if violation else None


def evaluate(expectation: Expectation, record: RunRecord) -> Outcome:
    text = record.answer_in(expectation.get("turn"))
    expected = describe(expectation)
    actual = f"answer: {render(text)}" if text.strip() else "no answer"
    if "matches" in expectation:
        found = check_target(expectation["matches"], text, expectation=expectation, record=record, base="final_answer")
        problem = "; ".join(labelled("answer", mismatch) for mismatch in found) or None
    else:
        problem = _problem(expectation, text)
    if problem is None:
        return passed(expected, actual)
    return failed(expected, actual, DiffEntry("answer_mismatch", problem))


KIND = Kind(
    name="final_answer",
    description="The final answer contains, matches, equals or starts with a text, is JSON (matching a schema), "
    "or matches any expected value.",
    params={**PARAMS, "transform": TRANSFORM},
    evaluate=evaluate,
    describe=describe,
    one_of=CHECKS,
    check=_check,
)
