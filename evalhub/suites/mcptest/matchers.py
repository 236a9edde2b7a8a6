"""mcptest matchers and assertion-level `transform` as EvalHub expected values and jq programs. Django-free.

Every deterministic mcptest matcher has an EvalHub `$`-matcher of the same meaning, nested compositions included;
`oneOf` (exactly one) is `$exactlyOne`, since EvalHub's `$oneOf` lists literal values. A matcher without an
equivalent is refused with the reason, never dropped: the caller reports it with the assertion's pointer.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorers.expectations.matchers import check_value
from scorers.expectations.transform import transform_problem


class Refused(ValueError):
    """An mcptest matcher or transform EvalHub cannot express; the message says why."""


@dataclass(frozen=True)
class Translated:
    expected: Any  # an EvalHub expected value
    approximations: tuple[str, ...] = ()  # what differs from mcptest, for the report


# mcptest name → EvalHub matcher taking the same argument unchanged.
_SAME_ARGUMENT = {
    "contains": "$contains",
    "contains-all": "$containsAll",
    "contains-any": "$containsAny",
    "icontains": "$icontains",
    "starts-with": "$startsWith",
    "regex": "$regex",
    "schema": "$schema",
    "levenshtein": "$levenshtein",
}
_COMPOSITIONS = {"allOf": "$allOf", "anyOf": "$anyOf", "oneOf": "$exactlyOne"}
_MODEL_GRADED = ("llm-judge", "llm-jury", "similar", "factuality", "answer-relevance", "context-faithfulness")
_REFUSED = {
    "llm-jury": "llm-jury has no EvalHub equivalent yet (a judge per juror with a quorum)",
    "similar": "similar needs an embeddings model; EvalHub has no embedding matcher",
    "factuality": "model-graded matchers other than llm-judge on final_response have no EvalHub equivalent",
    "answer-relevance": "model-graded matchers other than llm-judge on final_response have no EvalHub equivalent",
    "context-faithfulness": "model-graded matchers other than llm-judge on final_response have no EvalHub equivalent",
    "cel": "EvalHub has no CEL evaluator; express the predicate with $allOf/$anyOf/$not of matchers",
    "is-sql": "EvalHub has no SQL parser to check SQL syntax",
    "llm-judge": "llm-judge maps only as the whole matcher of a final_response assertion (a judge scorer)",
}


def translate(matcher: Any, *, composed: bool = False) -> Translated:
    """The EvalHub expected value of an mcptest matcher object (`{contains: "x"}`); raises Refused."""
    if not isinstance(matcher, Mapping) or len(matcher) != 1:
        raise Refused("a matcher has exactly one key")
    ((name, argument),) = matcher.items()
    name = str(name)
    if composed and (name == "snapshot" or name in _MODEL_GRADED):
        raise Refused(f"{name} cannot be negated or composed (mcptest refuses it at evaluation)")
    if name in _REFUSED:
        raise Refused(_REFUSED[name])
    approximations: tuple[str, ...] = ()
    if name == "exact":
        # A literal; objects and arrays as $equals, since a literal object elsewhere compares only its keys.
        expected: Any = {"$equals": argument} if isinstance(argument, dict | list) else argument
    elif name in _SAME_ARGUMENT:
        expected = {_SAME_ARGUMENT[name]: argument}
    elif name == "is-json":
        expected = {"$isJson": _optional(argument, "schema", name)}
    elif name == "is-xml":
        expected = {"$isXml": _optional(argument, "root", name)}
    elif name == "is-valid-tools-call":
        expected = {"$schema": _tools_call_schema(_optional(argument, "schema", name))}
    elif name == "snapshot":
        expected, approximations = _snapshot(argument)
    elif name == "not":
        inner = translate(argument, composed=True)
        expected, approximations = {"$not": inner.expected}, inner.approximations
    elif name in _COMPOSITIONS:
        if not isinstance(argument, list) or not argument:
            raise Refused(f"{name} needs a non-empty list of matchers")
        operands = [translate(operand, composed=True) for operand in argument]
        expected = {_COMPOSITIONS[name]: [operand.expected for operand in operands]}
        approximations = tuple(note for operand in operands for note in operand.approximations)
    else:
        raise Refused(f"unknown matcher {name!r}")
    errors = check_value(expected, "matcher")
    if errors:
        raise Refused("; ".join(errors))
    return Translated(expected, approximations)


def _optional(argument: Any, key: str, name: str) -> Any:
    """`~` (parse-only) as true, `{key: …}` kept; anything else refused."""
    if argument is None:
        return True
    if isinstance(argument, Mapping) and set(argument) <= {key}:
        return dict(argument) if argument else True
    raise Refused(f"{name} takes ~ or {{{key}: …}}")


def _tools_call_schema(argument: Any) -> dict[str, Any]:
    """mcptest's is-valid-tools-call as a JSON Schema: a string name and an arguments object (matching a schema)."""
    arguments = argument["schema"] if isinstance(argument, Mapping) else {"type": "object"}
    return {
        "type": "object",
        "required": ["name", "arguments"],
        "properties": {"name": {"type": "string"}, "arguments": {"allOf": [{"type": "object"}, arguments]}},
    }


def _snapshot(argument: Any) -> tuple[Any, tuple[str, ...]]:
    if isinstance(argument, str) and argument:
        return {"$snapshot": argument}, ()
    if isinstance(argument, Mapping) and isinstance(argument.get("name"), str) and set(argument) <= {"name", "update"}:
        notes: tuple[str, ...] = ()
        if "update" in argument:
            notes = ("snapshot update: is not kept: --update-snapshots re-records this snapshot like the others",)
        return {"$snapshot": argument["name"]}, notes
    raise Refused("snapshot takes a name, or {name, update}")


def jq_program(transform: Any) -> str:
    """The jq program of mcptest's `transform: jq <program>`; raises Refused for any other command."""
    if not isinstance(transform, str) or not transform.strip():
        raise Refused("transform is a command line such as `jq ascii_downcase`")
    try:
        words = shlex.split(transform)
    except ValueError as error:
        raise Refused(f"transform cannot be read as a command line ({error})") from error
    if words[0] != "jq" or len(words) != 2:
        raise Refused(
            "EvalHub runs transforms as jq programs in process, never as commands: only `jq <program>` (one "
            "program, no options) maps"
        )
    problem = transform_problem(words[1])
    if problem:
        raise Refused(f"transform {problem}")
    return words[1]


def at_path(program: str, path: list[str]) -> str:
    """A program that applies `program` to the value at `path` of an object, leaving the rest as it is."""
    if not path:
        return program
    steps = json.dumps(path)
    return f"setpath({steps}; getpath({steps}) | ({program}))"
