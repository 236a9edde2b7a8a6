"""Matchers on one value's type, text or number: `$type`, `$regex`, `$range`, `$icontains`, `$startsWith`,
`$oneOf`, `$equals`, `$any`.

`$oneOf` and `$equals` take literals, never matchers, which doubles as the escape hatch for an object whose only key
starts with `$`: `{"$equals": {"$ref": "#/a"}}` matches that exact object.
"""

from __future__ import annotations

import re
from typing import Any

from scorers.expectations.matchers.base import Matcher, article, regex_problem
from scorers.expectations.values import JSON_TYPES, has_type, is_number, render, values_equal


def _range_problem(argument: Any) -> str | None:
    return "needs two ordered numbers [min, max]" if argument[0] > argument[1] else None


MATCHERS = [
    Matcher(
        "$type",
        "The value has this JSON type: string, number, integer, boolean, object, array or null.",
        {"enum": list(JSON_TYPES)},
        f"one of {', '.join(JSON_TYPES)}",
        "string",
        noun=lambda argument, actual: "null" if argument == "null" else article(argument),
        predicate=lambda argument: f"of type {argument}",
        accepts=lambda argument, actual: has_type(actual, argument),
    ),
    Matcher(
        "$regex",
        "A string in which this regular expression matches (anywhere; anchor it with ^ and $).",
        {"type": "string"},
        "a regular expression string",
        "^",
        noun=lambda argument, actual: f"a string matching {argument}",
        predicate=lambda argument: f"matching {argument}",
        accepts=lambda argument, actual: isinstance(actual, str) and re.search(argument, actual) is not None,
        problem=regex_problem,
    ),
    Matcher(
        "$range",
        "A number in [min, max], both ends included.",
        {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "minItems": 2, "maxItems": 2},
        "two ordered numbers [min, max]",
        [0, 1],
        noun=lambda argument, actual: f"number in [{argument[0]}, {argument[1]}]",
        predicate=lambda argument: f"in [{argument[0]}, {argument[1]}]",
        accepts=lambda argument, actual: is_number(actual) and argument[0] <= actual <= argument[1],
        problem=_range_problem,
    ),
    Matcher(
        "$icontains",
        "A string containing this substring, ignoring case.",
        {"type": "string"},
        "a string",
        "",
        noun=lambda argument, actual: f"a string containing {render(argument)} (ignoring case)",
        predicate=lambda argument: f"containing {render(argument)} in any case",
        accepts=lambda argument, actual: isinstance(actual, str) and argument.casefold() in actual.casefold(),
    ),
    Matcher(
        "$startsWith",
        "A string that starts with this prefix.",
        {"type": "string"},
        "a string",
        "",
        noun=lambda argument, actual: f"a string starting with {render(argument)}",
        predicate=lambda argument: f"starting with {render(argument)}",
        accepts=lambda argument, actual: isinstance(actual, str) and actual.startswith(argument),
    ),
    Matcher(
        "$oneOf",
        "Equal to one of these values (compared as literals; see $exactlyOne to compose matchers).",
        {"type": "array", "minItems": 1},
        "a non-empty array of values",
        [""],
        noun=lambda argument, actual: f"one of {render(argument)}",
        predicate=lambda argument: f"one of {render(argument)}",
        accepts=lambda argument, actual: any(values_equal(option, actual) for option in argument),
    ),
    Matcher(
        "$equals",
        "Exactly this value: deep equality, no extra keys, no matchers inside (a literal).",
        {},
        "a JSON value",
        "",
        noun=lambda argument, actual: f"exactly {render(argument)}",
        predicate=lambda argument: f"= {render(argument)} exactly",
        accepts=values_equal,
    ),
    Matcher(
        "$any",
        "Any value at all, as long as the key is present (write true).",
        {"const": True},
        "true",
        True,
        noun=lambda argument, actual: "any value",
        predicate=lambda argument: "(any value)",
        accepts=lambda argument, actual: True,
    ),
]
