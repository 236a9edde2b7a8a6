"""What every matcher shares: how a matcher is declared, how a difference is reported, and the state a match reads.

A matcher declares its argument (a JSON Schema, what an error says it `needs`, and a `problem` for rules a schema
cannot say), how it reads in messages (`noun` after "expected", `predicate` after a key), and its test: `accepts`
for a yes/no check, or `test` when it explains a failure better than "expected …, got …" can.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from scorers.expectations.values import render

MatchMode = Literal["partial", "exact"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Mismatch:
    """One difference: where (`latitude`, `legs[0].origin`; empty for the value itself) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass
class Snapshots:
    """The stored snapshots an evaluation compares with, and what it saw (the caller persists what it must).

    `update` re-records every snapshot the evaluation reaches; `may_create` false (CI without --update-snapshots)
    fails a check that would record a first value, so a CI job never invents its own golden values.
    """

    stored: Mapping[str, Any] = field(default_factory=dict)
    update: bool = False
    may_create: bool = True
    # key → {"key", "value", "status"}: status is created, updated, matched, mismatched or refused.
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class MatchContext:
    """What a match needs besides the two values: the comparison mode, and for `$snapshot` its target and store.

    `target` names what the expectation reads (`final_answer`, `tool_result get_weather $.structuredContent`): a
    `$snapshot: true` is keyed by it and the path inside the value.
    """

    mode: MatchMode = "partial"
    target: str = ""
    snapshots: Snapshots | None = None


@dataclass(frozen=True)
class Matcher:
    name: str
    description: str  # one line, for the editor and the docs
    schema: Mapping[str, Any]  # JSON Schema of the argument
    needs: str  # what an error says the argument needs: "a string"
    example: Any  # an argument the editor starts from
    noun: Callable[[Any, Any], str]  # (argument, actual) → "a string starting with "ab""
    predicate: Callable[[Any], str]  # argument → "starting with "ab""
    accepts: Callable[[Any, Any], bool] | None = None
    test: Callable[[Any, Any, str, MatchContext], list[Mismatch]] | None = None
    problem: Callable[[Any], str | None] | None = None  # what the schema cannot say, on a well-typed argument
    composes: bool = False  # its argument holds expected values (matchers inside), validated as such


def matcher_of(value: Any) -> tuple[str, Any] | None:
    """(name, argument) when `value` is a matcher, else None (the value is a literal)."""
    if isinstance(value, Mapping) and len(value) == 1:
        ((key, argument),) = value.items()
        if isinstance(key, str) and key.startswith("$"):
            return key, argument
    return None


def join_path(path: str, key: str | int) -> str:
    """`latitude`, `filters.max_price`, `legs[0]`, `headers["x-api-key"]`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENTIFIER.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{render(key)}]"


def article(noun: str) -> str:
    return f"{'an' if noun[:1] in tuple('aeiou') else 'a'} {noun}"


def regex_problem(pattern: str) -> str | None:
    """Why a regular expression does not compile, or None."""
    try:
        re.compile(pattern)
    except re.error as error:
        return f"is not a valid regular expression ({error})"
    return None


def suggestion(name: str, known: Any) -> str:
    """`; did you mean "$range"?` when a known name is close to a misspelt one, else nothing."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {render(close[0])}?" if close else ""
