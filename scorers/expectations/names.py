"""`tool_names`: the ordered list of the tools called (nested calls included), checked by any expected value.

mcptest's `tool_names` target: `["search", "fetch"]` pins the whole trajectory, `{"$containsAll": ["search"]}`
requires a tool, `{"$not": {"$contains": "delete_all"}}` forbids one.
"""

from __future__ import annotations

from scorers.expectations.matchers import describe_value
from scorers.expectations.outcome import DiffEntry, Outcome, failed, passed
from scorers.expectations.record import RunRecord
from scorers.expectations.spec import Expectation, Kind, scoped
from scorers.expectations.targets import MATCHES, check_target, labelled
from scorers.expectations.transform import TRANSFORM
from scorers.expectations.values import render


def describe(expectation: Expectation) -> str:
    through = f" (through {expectation['transform']})" if expectation.get("transform") else ""
    return scoped(expectation, f"tool names{through} {', '.join(describe_value(expectation['matches']))}")


def evaluate(expectation: Expectation, record: RunRecord) -> Outcome:
    names = [call.tool for call in record.calls_in(expectation.get("turn"))]
    expected = describe(expectation)
    actual = f"tool names: {render(names)}"
    found = check_target(expectation["matches"], names, expectation=expectation, record=record, base="tool_names")
    if not found:
        return passed(expected, actual)
    # The trajectory differs from the one expected: the closest of the diff's categories.
    return failed(expected, actual, *(DiffEntry("out_of_order", labelled("tool names", m)) for m in found))


KIND = Kind(
    name="tool_names",
    description="The ordered list of tool names called matches an expected value (a list, $containsAll, $not, …).",
    params={"matches": MATCHES, "transform": TRANSFORM},
    evaluate=evaluate,
    describe=describe,
    required=("matches",),
)
