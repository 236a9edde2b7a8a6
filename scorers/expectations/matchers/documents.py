"""Matchers on a document's form: `$isJson` (JSON text, optionally matching a schema), `$schema` (a value matching
a JSON Schema) and `$isXml` (well-formed XML text, optionally with a given root element).

XML is read with expat, the standard library's streaming parser: it never fetches external entities, and expat
2.4+ refuses entity expansion attacks ("billion laughs"), so a hostile server's text cannot stall the worker.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from xml.parsers import expat

from scorers.expectations.matchers.base import MatchContext, Matcher, Mismatch
from scorers.expectations.schema_checks import schema_problem, schema_violation
from scorers.expectations.values import render

_SCHEMA = {"type": ["object", "boolean"]}


def _options(key: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """`true`, or an object with one optional setting: the argument shape of `$isJson` and `$isXml`."""
    return {
        "oneOf": [
            {"const": True},
            {"type": "object", "properties": {key: schema}, "additionalProperties": False},
        ]
    }


def _schema_of(argument: Any) -> Any:
    return argument.get("schema") if isinstance(argument, Mapping) else None


def _is_json_problem(argument: Any) -> str | None:
    schema = _schema_of(argument)
    problem = schema_problem(schema) if schema is not None else None
    return f"schema {problem}" if problem else None


def _is_json_test(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    noun = "JSON text" + (" matching a schema" if _schema_of(argument) is not None else "")
    if not isinstance(actual, str):
        return [Mismatch(path, f"expected {noun}, got {render(actual)} (not a string)")]
    try:
        document = json.loads(actual)
    except ValueError as error:
        return [Mismatch(path, f"expected {noun}, got {render(actual)} ({error})")]
    schema = _schema_of(argument)
    violation = schema_violation(schema, document) if schema is not None else None
    return [Mismatch(path, f"expected {noun}: {violation}")] if violation else []


def _schema_test(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    violation = schema_violation(argument, actual)
    return [Mismatch(path, f"expected a value matching the schema: {violation}")] if violation else []


def xml_root(text: str) -> tuple[str | None, str | None]:
    """(the root element's name, None) for well-formed XML, else (None, why not)."""
    roots: list[str] = []
    parser = expat.ParserCreate()
    parser.StartElementHandler = lambda name, attributes: roots.append(name) if not roots else None
    try:
        parser.Parse(text, True)
    except expat.ExpatError as error:
        return None, str(error)
    return roots[0], None


def _root_of(argument: Any) -> str | None:
    return argument.get("root") if isinstance(argument, Mapping) else None


def _is_xml_test(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    root = _root_of(argument)
    noun = "XML text" + (f" with root <{root}>" if root else "")
    if not isinstance(actual, str):
        return [Mismatch(path, f"expected {noun}, got {render(actual)} (not a string)")]
    found, error = xml_root(actual)
    if error is not None:
        return [Mismatch(path, f"expected {noun}, got {render(actual)} ({error})")]
    if root and found != root:
        return [Mismatch(path, f"expected {noun}, got root <{found}>")]
    return []


MATCHERS = [
    Matcher(
        "$isJson",
        'A string that parses as JSON (true), optionally matching a JSON Schema ({"schema": {…}}).',
        _options("schema", _SCHEMA),
        'true or {"schema": a JSON Schema}',
        True,
        noun=lambda argument, actual: "JSON text" + (" matching a schema" if _schema_of(argument) else ""),
        predicate=lambda argument: "is JSON" + (" matching a schema" if _schema_of(argument) else ""),
        test=_is_json_test,
        problem=_is_json_problem,
    ),
    Matcher(
        "$schema",
        "A value matching this JSON Schema (draft 2020-12; only same-document $refs).",
        _SCHEMA,
        "a JSON Schema (an object or a boolean)",
        {"type": "object"},
        noun=lambda argument, actual: "a value matching the schema",
        predicate=lambda argument: "matching a JSON Schema",
        test=_schema_test,
        problem=schema_problem,
    ),
    Matcher(
        "$isXml",
        'A string that is well-formed XML (true), optionally with this root element ({"root": "note"}).',
        _options("root", {"type": "string", "minLength": 1}),
        'true or {"root": an element name}',
        True,
        noun=lambda argument, actual: "XML text" + (f" with root <{_root_of(argument)}>" if _root_of(argument) else ""),
        predicate=lambda argument: "is XML" + (f" with root <{_root_of(argument)}>" if _root_of(argument) else ""),
        test=_is_xml_test,
    ),
]
