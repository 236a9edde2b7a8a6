"""`scenarios:` a prompt for an agent with one server's tools, its limits, expectations, tags and scorers.

Defaults are the Scenario model's (a test keeps them equal)."""

from __future__ import annotations

from evalhub.suites.sections.spec import NAME, Field, Section

TAG_PATTERN = "^[-a-zA-Z0-9_]{1,50}$"  # a Tag is a slug
_NAMES = {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True}

SECTION = Section(
    key="scenarios",
    description="A scenario, by name.",
    fields={
        "name": Field(NAME, "Unique name."),
        "description": Field({"type": "string"}, "What it is for.", ""),
        "server": Field({"type": "string", "minLength": 1}, "The MCP server's name.", attr=None),
        "provider": Field({"type": "string", "minLength": 1}, "The model provider's name.", attr=None),
        "model": Field({"type": "string", "minLength": 1}, "The model the agent runs on."),
        "prompt": Field({"type": "string", "minLength": 1}, "What the user asks the agent."),
        "system_prompt": Field({"type": "string"}, "The agent's system prompt.", ""),
        "max_turns": Field({"type": "integer", "minimum": 1, "maximum": 100}, "Most model calls.", 10),
        "max_tool_calls": Field({"type": "integer", "minimum": 1, "maximum": 500}, "Most tool calls.", 25),
        "time_limit_seconds": Field({"type": "integer", "minimum": 5, "maximum": 1200}, "Wall-clock limit.", 300),
        "max_tokens": Field(
            {"type": "integer", "minimum": 16, "maximum": 200000}, "Most output tokens per model call.", 4096
        ),
        "token_budget": Field({"type": ["integer", "null"], "minimum": 1}, "Stop at this many tokens.", None),
        "cost_budget_usd": Field(
            {"type": ["number", "null"], "minimum": 0.0001}, "Stop at this cost (USD).", None, attr=None
        ),
        "pass_threshold": Field({"type": "number", "minimum": 0, "maximum": 1}, "Score needed to pass.", 0.7),
        "expected_tools": Field(_NAMES, "Tool names the run should call.", []),
        "expectations": Field({"$ref": "#/$defs/expectations"}, "Declarative checks of the run.", []),
        "expected": Field({}, "Free JSON handed to scorers as `expected`.", None),
        "tool_mode": Field(
            {"enum": ["direct", "code"]},
            "direct: the model calls tools; code: it writes JavaScript calling them.",
            "direct",
        ),
        "level": Field(
            {"enum": ["scenario", "invocation", "execution", "resource", "prompt"]},
            "scenario: the agent loop; invocation: one model turn, tools not executed; execution: tool_call, no model; "
            "resource / prompt: primitive read or got directly, no model.",
            "scenario",
        ),
        "primitive": Field(
            {
                "type": ["object", "null"],
                "properties": {
                    "uri": {"type": "string", "minLength": 1},
                    "template": {"type": "string", "minLength": 1},
                    "name": {"type": "string", "minLength": 1},
                    "arguments": {"type": "object"},
                },
                "additionalProperties": False,
            },
            "Resource level: {uri} or {template, arguments}; prompt level: {name, arguments} (string values).",
            None,
        ),
        "tool_call": Field(
            {
                "type": ["object", "null"],
                "properties": {"tool": {"type": "string", "minLength": 1}, "arguments": {"type": "object"}},
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            },
            "Execution level: the tool to call directly, {tool, arguments}.",
            None,
        ),
        "conversation": Field(
            {"type": "object"},
            'Follow-up user turns {"turns": [...]} or a simulated user {"simulate": {...}}; {} is one prompt.',
            {},
        ),
        "variables": Field(
            {
                "type": "object",
                "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "env": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                        "default": {"type": "string"},
                    },
                    "required": ["env"],
                    "additionalProperties": False,
                },
            },
            "`${name}` in the prompt, system prompt, conversation, tool call and expectations reads the environment "
            "variable `env` (allowlisted like a secret reference) when a run starts, else `default`; `$${` is a "
            "literal `${`.",
            {},
        ),
        "fault_injection": Field(
            {"type": "object"},
            'Faults injected into its tool calls and the recovery expected: {"faults": [{name, tool, kind, …}], '
            '"recovery": {max_detection_ms, max_recovery_ms, require_clean_timeout, require_told_user}}; {} is none.',
            {},
        ),
        "tags": Field(
            {**_NAMES, "items": {"type": "string", "pattern": TAG_PATTERN}},
            "Tags.",
            [],
            attr=None,
            unordered=True,
        ),
        "scorers": Field(
            _NAMES,
            "Names of the scorers attached; each gates (a run passes only if it does).",
            [],
            attr=None,
            unordered=True,
        ),
        "advisory_scorers": Field(
            _NAMES,
            "Names of scorers attached as advisory: shown and counted in the score, never failing a run.",
            [],
            attr=None,
            unordered=True,
        ),
        "scorer_thresholds": Field(
            {"type": "object", "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1}},
            "A gating scorer's own threshold, by its name (default: pass_threshold).",
            {},
            attr=None,
        ),
        "tool_errors_expected": Field(
            {"type": "boolean"}, "Tool errors are expected: they neither fail the run nor blame the server.", False
        ),
    },
)
