"""Containment, by the type of the value (mcptest's `contains`, `contains-all`, `contains-any`):

- a string contains a substring;
- an array contains an element, or, given an array, every listed element as a multiset (each listed element needs
  an element of its own: `["a", "a"]` needs two);
- an object contains a subset of keys;
- any other value (number, boolean, null) compares by equality.

Below the top, containment is structural: objects are subsets, arrays multisets, and every other value, strings
included, compares by equality. So `{"content": [{"text": ""}]}` finds an empty text block among other keys, while
a non-empty text does not contain it (a substring rule would find "" in every text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorers.expectations.matchers.base import MatchContext, Matcher, Mismatch
from scorers.expectations.values import render, values_equal


def nested(expected: Any, actual: Any) -> bool:
    """Containment below the top: object subset, array multiset, equality for everything else."""
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(k in actual and nested(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and multiset(expected, actual)
    return values_equal(expected, actual)


def multiset(expected: Sequence[Any], actual: Sequence[Any]) -> bool:
    """Whether each expected element can be given a distinct actual element that contains it.

    A bipartite matching (augmenting paths), since a greedy pick can take the element a later one needed:
    `[{"a": 1}, {"a": 1, "b": 2}]` in `[{"a": 1, "b": 2}, {"a": 1}]`.
    """
    owner: dict[int, int] = {}  # actual index → expected index using it

    def place(i: int, tried: set[int]) -> bool:
        for j, item in enumerate(actual):
            if j in tried or not nested(expected[i], item):
                continue
            tried.add(j)
            if j not in owner or place(owner[j], tried):
                owner[j] = i
                return True
        return False

    return all(place(i, set()) for i in range(len(expected)))


def contains(argument: Any, actual: Any) -> bool:
    if isinstance(actual, str):
        return isinstance(argument, str) and argument in actual
    if isinstance(actual, list):
        return multiset(argument, actual) if isinstance(argument, list) else any(nested(argument, x) for x in actual)
    if isinstance(actual, Mapping):
        return isinstance(argument, Mapping) and nested(argument, actual)
    return values_equal(argument, actual)


def _container(argument: Any, actual: Any) -> str:
    if isinstance(actual, list):
        return "an array"
    if isinstance(actual, Mapping) or isinstance(argument, Mapping):
        return "an object"
    if isinstance(argument, str):
        # Only a string can be found in a string; an array can hold anything.
        return "a string" if isinstance(actual, str) else "a string or array"
    return "an array" if isinstance(argument, list) else ""


def _contains_noun(argument: Any, actual: Any) -> str:
    container = _container(argument, actual)
    if not container:
        return render(argument)  # a number, boolean or null is contained only in itself
    every = "all of " if isinstance(argument, list) and isinstance(actual, list) else ""
    return f"{container} containing {every}{render(argument)}"


def _found(needle: Any, actual: Any) -> bool:
    if isinstance(actual, str):
        return isinstance(needle, str) and needle in actual
    return isinstance(actual, list) and any(nested(needle, item) for item in actual)


def _kind_of(actual: Any) -> str:
    return "an array" if isinstance(actual, list) else "a string" if isinstance(actual, str) else "a string or array"


def _all_test(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    missing = [needle for needle in argument if not _found(needle, actual)]
    if not missing:
        return []
    noun = f"{_kind_of(actual)} containing all of {render(argument)}"
    return [Mismatch(path, f"expected {noun}, got {render(actual)} (missing {', '.join(map(render, missing))})")]


MATCHERS = [
    Matcher(
        "$contains",
        "A string containing this substring; an array containing this element (or, given an array, all of its "
        "elements as a multiset); an object containing these keys and values (a subset).",
        {},
        "a JSON value",
        "",
        noun=_contains_noun,
        predicate=lambda argument: f"containing {render(argument)}",
        accepts=contains,
    ),
    Matcher(
        "$containsAll",
        "A string containing every one of these substrings, or an array containing every one of these elements.",
        {"type": "array"},
        "an array of substrings or elements",
        [""],
        noun=lambda argument, actual: f"{_kind_of(actual)} containing all of {render(argument)}",
        predicate=lambda argument: f"containing all of {render(argument)}",
        test=_all_test,
    ),
    Matcher(
        "$containsAny",
        "A string containing at least one of these substrings, or an array containing at least one of these "
        "elements. An empty list never matches.",
        {"type": "array"},
        "an array of substrings or elements",
        [""],
        noun=lambda argument, actual: f"{_kind_of(actual)} containing any of {render(argument)}",
        predicate=lambda argument: f"containing any of {render(argument)}",
        accepts=lambda argument, actual: any(_found(needle, actual) for needle in argument),
    ),
]
