"""Expectations: declarative checks on a run — which tools it called, with which arguments, in which order, what
they returned, what it answered, and what it spent. Django-free: one pure evaluator reused by the run scorer, the
MCP evals-protocol grading and suite files, and testable without a database.

An expectation is a JSON object with a `kind` and that kind's parameters, plus optional `weight`, `required`,
`description` and `turn`. It is evaluated against the same record code scorers receive, `{input, expected,
output: {text, transcript, toolCalls, allToolCalls}, run}`. Tool calls are read from `allToolCalls`, so calls
nested inside another call (code mode) count too.

Modules: `matchers` (argument and value matchers), `values` (JSON equality and rendering), `record` (the record
read once, turn scoping), `paths` (the JSON path subset of `tool_result`), one module per family of kinds
(`called`, `calls`, `sequence`, `tool_result`, `answer`, `run_checks`) registered in `kinds`, `validation`,
`schema` (the exported JSON Schema), `evaluate` and `proposal`.
"""

from __future__ import annotations

from scorers.expectations.evaluate import (
    ExpectationOutcome,
    ExpectationsResult,
    InvalidExpectations,
    describe,
    evaluate_expectations,
)
from scorers.expectations.kinds import KIND_DESCRIPTIONS
from scorers.expectations.matchers import MATCHERS, Mismatch, match
from scorers.expectations.outcome import CATEGORIES, DiffEntry
from scorers.expectations.proposal import propose_expectations
from scorers.expectations.schema import EXPECTATIONS_JSON_SCHEMA
from scorers.expectations.validation import validate_expectations

__all__ = [
    "CATEGORIES",
    "EXPECTATIONS_JSON_SCHEMA",
    "KIND_DESCRIPTIONS",
    "MATCHERS",
    "DiffEntry",
    "ExpectationOutcome",
    "ExpectationsResult",
    "InvalidExpectations",
    "Mismatch",
    "describe",
    "evaluate_expectations",
    "match",
    "propose_expectations",
    "validate_expectations",
]
