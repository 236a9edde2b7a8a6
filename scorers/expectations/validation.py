"""`validate_expectations`: every problem of an expectations list, each pointing at its index and field.

    expectations[2].args.latitude: unknown matcher "$rnage"; did you mean "$range"?

A list is validated whole before anything is evaluated, so authors see all their mistakes at once and evaluation
can rely on well-formed parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from scorers.expectations.kinds import KINDS
from scorers.expectations.matchers import join_path, suggestion
from scorers.expectations.spec import COMMON_PARAMS, Kind, Param
from scorers.expectations.values import render


def validate_expectations(data: Any) -> list[str]:
    """All the errors of an expectations list; empty when it is valid."""
    if not isinstance(data, list):
        return [f"expectations: expected a list, got {render(data)}"]
    return [error for i, item in enumerate(data) for error in validate_expectation(item, f"expectations[{i}]")]


def validate_expectation(item: Any, where: str) -> list[str]:
    """The errors of one expectation, `where` being its pointer (`expectations[2]`)."""
    if not isinstance(item, Mapping):
        return [f"{where}: expected an object, got {render(item)}"]
    if "kind" not in item:
        return [f"{where}.kind: required (one of {', '.join(KINDS)})"]
    name = item["kind"]
    if not isinstance(name, str) or name not in KINDS:
        hint = suggestion(name, KINDS) if isinstance(name, str) else ""
        return [f"{where}.kind: unknown kind {render(name)}{hint}"]
    kind = KINDS[name]
    errors = _unknown_keys(item, kind, where) + _presence(item, kind, where)
    params = {**COMMON_PARAMS, **kind.params}
    for key, value in item.items():  # in the author's order, so errors read top to bottom like the file
        if key in params:
            errors += _param_errors(params[key], value, join_path(where, key))
    if kind.whole_run and "turn" in item:
        errors.append(f"{where}.turn: {name} applies to the whole run, not to one turn")
    if not errors and kind.check is not None:
        # Rules across parameters assume each parameter is well typed, so they run last.
        errors += kind.check(item, where)
    return errors


def _unknown_keys(item: Mapping[str, Any], kind: Kind, where: str) -> list[str]:
    # `turn` stays allowed on whole-run kinds here: refusing it gets its own, clearer error.
    allowed = ["kind", *kind.params, *COMMON_PARAMS]
    return [
        f"{join_path(where, str(key))}: unknown key for {kind.name}{suggestion(str(key), allowed)}"
        for key in item
        if key not in allowed
    ]


def _presence(item: Mapping[str, Any], kind: Kind, where: str) -> list[str]:
    errors = [f"{where}.{name}: required for {kind.name}" for name in kind.required if name not in item]
    if kind.one_of:
        present = [name for name in kind.one_of if name in item]
        if len(present) != 1:
            given = f", got {' and '.join(present)}" if present else ""
            errors.append(f"{where}: {kind.name} needs exactly one of {', '.join(kind.one_of)}{given}")
    return errors


def _param_errors(param: Param, value: Any, where: str) -> list[str]:
    if param.check is not None:
        return param.check(value, where)
    if Draft202012Validator(dict(param.schema)).is_valid(value):
        return []
    return [f"{where}: expected {param.expects}, got {render(value)}"]
