"""mcptest's v1 schema as its reference describes it, checked before anything converts. Django-free.

mcptest validates a file against schemas/v1.json at load time, rejects unknown keys ("a typo in `varables:` fails
the run instead of silently doing nothing") and wrong types, and names each place with a JSON pointer. An import
does the same: a file mcptest refuses is refused here, with the same kind of message
(`/agents/0/max_turns: expected an integer, got a string "10"`), so nothing a typo or a wrong type would change is
imported as if it meant something. Objects whose fields the reference lists are closed (additionalProperties:
false); the few it only sketches (compositions, scorers, defaultTest, fixtures) are open, and what they hold is
refused as a whole by the converter.

A file that passes is what the converter walks: it may rely on every type here. The checking and its messages are
in file_check.py.
"""

from __future__ import annotations

from typing import Any

TEXT: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer", "minimum": 0}
NUMBER: dict[str, Any] = {"type": "number"}
BOOL: dict[str, Any] = {"type": "boolean"}
OBJECT: dict[str, Any] = {"type": "object"}
TEXTS: dict[str, Any] = {"type": "array", "items": TEXT}
SCORE: dict[str, Any] = {"type": "number", "minimum": 0, "maximum": 1}
TAGS = TEXTS
PROTOCOL_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-03-26", "2026-07-28"]
MATCHERS = [
    "exact",
    "contains",
    "regex",
    "schema",
    "snapshot",
    "llm-judge",
    "llm-jury",
    "contains-all",
    "contains-any",
    "icontains",
    "starts-with",
    "is-json",
    "is-valid-tools-call",
    "levenshtein",
    "is-xml",
    "is-sql",
    "similar",
    "cel",
    "factuality",
    "answer-relevance",
    "context-faithfulness",
    "not",
    "oneOf",
    "anyOf",
    "allOf",
]


def closed(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


_JUDGED = {"threshold": SCORE, "model": TEXT}
_SCHEMA_OPTION: dict[str, Any] = {"anyOf": [{"type": "null"}, closed({"schema": OBJECT})]}
_MATCHER_ARGUMENTS: dict[str, Any] = {
    "regex": TEXT,
    "schema": OBJECT,
    "snapshot": {"anyOf": [TEXT, closed({"name": TEXT, "update": BOOL}, "name")]},
    "llm-judge": closed({"rubric": TEXT, **_JUDGED}, "rubric"),
    "llm-jury": closed(
        {
            "rubric": TEXT,
            "jurors": {"type": "array", "minItems": 1, "items": closed({"model": TEXT}, "model")},
            "threshold": SCORE,
            "quorum": SCORE,
        },
        "rubric",
        "jurors",
    ),
    "contains-all": {"type": "array"},
    "contains-any": {"type": "array"},
    "icontains": TEXT,
    "starts-with": TEXT,
    "is-json": _SCHEMA_OPTION,
    "is-valid-tools-call": _SCHEMA_OPTION,
    "levenshtein": closed({"value": TEXT, "max": INT}, "value", "max"),
    "is-xml": {"anyOf": [{"type": "null"}, closed({"root": TEXT})]},
    "is-sql": {"type": "null"},
    "similar": closed({"value": TEXT, "threshold": SCORE, "model": TEXT}, "value"),
    "cel": TEXT,
    "factuality": closed({"reference": TEXT, **_JUDGED}, "reference"),
    "answer-relevance": closed({"query": TEXT, **_JUDGED}, "query"),
    "context-faithfulness": closed({"context": TEXT, **_JUDGED}, "context"),
    "not": {"$ref": "#/$defs/matcher"},
    **{
        name: {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/matcher"}}
        for name in ("oneOf", "anyOf", "allOf")
    },
}
MATCHER: dict[str, Any] = {
    "type": "object",
    "minProperties": 1,
    "maxProperties": 1,
    "properties": {name: _MATCHER_ARGUMENTS.get(name, {}) for name in MATCHERS},
    "additionalProperties": False,
}
ASSERTION = closed(
    {"target": TEXT, "matcher": {"$ref": "#/$defs/matcher"}, "message": TEXT, "transform": TEXT}, "target", "matcher"
)
ASSERTIONS: dict[str, Any] = {"type": "array", "items": ASSERTION}
EXPECT: dict[str, Any] = {
    "anyOf": [
        ASSERTIONS,
        closed(
            {
                "assertions": ASSERTIONS,
                "max_duration_ms": INT,
                "max_response_tokens": INT,
                "response_headers": {"type": "object", "additionalProperties": TEXT},
                "response_headers_absent": TEXTS,
            }
        ),
    ]
}
_TREE: dict[str, Any] = {
    "anyOf": [
        closed({"ask": TEXT, "yes": {"$ref": "#/$defs/tree"}, "no": {"$ref": "#/$defs/tree"}}, "ask", "yes", "no"),
        closed({"score": SCORE, "reason": TEXT}, "score"),
    ]
}
RUBRIC: dict[str, Any] = {
    "anyOf": [
        TEXT,
        closed({"ref": TEXT}, "ref"),
        closed(
            {
                "threshold": SCORE,
                "criteria": {
                    "type": "array",
                    "minItems": 1,
                    "items": closed(
                        {"name": TEXT, "description": TEXT, "weight": {"type": "number", "minimum": 0}}, "name"
                    ),
                },
                "tree": {"$ref": "#/$defs/tree"},
            }
        ),
    ]
}
HEADER_VALUE: dict[str, Any] = {"anyOf": [TEXT, closed({"env": TEXT}, "env")]}
SERVER = closed(
    {
        "command": {"type": "array", "minItems": 1, "items": TEXT},
        "env": {"type": "object", "additionalProperties": TEXT},
        "url": TEXT,
        "cassette": TEXT,
        "auth": closed(
            {
                "bearer_token_env": TEXT,
                "oauth": closed(
                    {
                        "client_id_env": TEXT,
                        "client_secret_env": TEXT,
                        "authorization_url": TEXT,
                        "token_url": TEXT,
                        "scopes": TEXTS,
                    },
                    "client_id_env",
                    "token_url",
                ),
                # Reserved for a future release: mcptest warns and does not validate them.
                "headers": {},
                "mtls": {},
            }
        ),
        "wait_for_ready": TEXT,
        "headers": {"type": "object", "additionalProperties": HEADER_VALUE},
        "http": closed(
            {
                "timeout": {"$ref": "#/$defs/duration"},
                "connect_timeout": {"$ref": "#/$defs/duration"},
                "max_redirects": INT,
                "user_agent_override": BOOL,
                "tls": closed({"insecure_skip_verify": BOOL, "ca_bundle_path": TEXT, "min_version": TEXT}),
            }
        ),
    }
)
VARIABLE = closed({"value": {"type": ["string", "number", "boolean"]}, "from_env": TEXT, "default": TEXT})
_TEST = {"name": TEXT, "server": TEXT, "expect": EXPECT, "tags": TAGS}
TOOL_TEST = closed(
    {
        **_TEST,
        "tool": TEXT,
        "args": OBJECT,
        "timeout_ms": INT,
        "transform": closed({"request": TEXT, "response": TEXT}),
        "inject_error": TEXT,
    },
    "name",
    "server",
    "tool",
)
MODEL: dict[str, Any] = {"anyOf": [TEXT, closed({"provider": TEXT, "id": TEXT}, "provider", "id")]}
METRIC = closed({"threshold": SCORE})
AGENT = closed(
    {
        **_TEST,
        "model": MODEL,
        "models": {"type": "array", "minItems": 1, "items": MODEL},
        "servers": {"type": "array", "minItems": 1, "items": TEXT},
        "prompt": TEXT,
        "turns": {
            "anyOf": [
                {"type": "array", "minItems": 1, "items": closed({"user": TEXT}, "user")},
                closed({"simulate": closed({"goal": TEXT, "persona": TEXT, "max_turns": INT}, "goal")}, "simulate"),
            ]
        },
        "system_prompt": TEXT,
        "max_turns": INT,
        "max_tokens": INT,
        "token_budget": INT,
        "max_tool_calls": INT,
        "time_budget": {"$ref": "#/$defs/duration"},
        "inject": TEXTS,
        "recovery": closed(
            {"max_detection_ms": INT, "max_recovery_ms": INT, "require_clean_timeout": BOOL}, "max_detection_ms"
        ),
        "eval": closed(
            {
                **{
                    name: METRIC
                    for name in (
                        "mcp_task_completion",
                        "mcp_use",
                        "argument_correctness",
                        "plan_quality",
                        "multi_turn_mcp_use",
                    )
                },
                "rubric": RUBRIC,
            }
        ),
    },
    "name",
    "servers",
)
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["servers"],
    "additionalProperties": False,
    "properties": {
        "servers": {"type": "object", "minProperties": 1, "additionalProperties": SERVER},
        "imports": TEXTS,
        "variables": {"type": "object", "additionalProperties": VARIABLE},
        "tools": {"type": "array", "items": TOOL_TEST},
        "resources": {"type": "array", "items": closed({**_TEST, "uri": TEXT}, "name", "server", "uri")},
        "prompts": {
            "type": "array",
            "items": closed({**_TEST, "prompt": TEXT, "args": OBJECT}, "name", "server", "prompt"),
        },
        "agents": {"type": "array", "items": AGENT},
        "faults": {
            "type": "array",
            "items": closed(
                {
                    "name": TEXT,
                    "target": closed({"tool": TEXT, "server": TEXT}),
                    "kind": {"enum": ["hang", "wedged", "slow", "recover_after"]},
                    "delay_ms": INT,
                    "failures": INT,
                },
                "name",
                "target",
                "kind",
            ),
        },
        "providers": {
            "type": "object",
            "additionalProperties": closed(
                {"type": {"enum": ["openai"]}, "base_url": TEXT, "api_key_env": TEXT, "organization": TEXT},
                "type",
                "base_url",
            ),
        },
        "budget": closed({"per_test_usd_cents": INT, "per_suite_usd_cents": INT}),
        "compliance": {"type": "array", "items": closed({**_TEST, "check": TEXT}, "name", "server", "check")},
        "evals": {
            "type": "array",
            "items": closed(
                {"name": TEXT, "server": TEXT, "prompt": TEXT, "rubric": RUBRIC, "threshold": SCORE},
                "name",
                "server",
                "prompt",
            ),
        },
        "rubrics": {"type": "object", "additionalProperties": RUBRIC},
        "model_compatibility": TEXTS,
        "performance": closed({"default_timeout_ms": INT, "p95_latency_ms": INT}),
        "target_versions": {"type": "array", "items": {"enum": PROTOCOL_VERSIONS}},
        # Sketched by the reference (their own pages hold the full shapes): kept open, refused whole on import.
        "fixtures": OBJECT,
        "compositions": {"type": "array", "items": OBJECT},
        "scorers": {"type": "array", "items": OBJECT},
        "defaultTest": OBJECT,
    },
    "$defs": {
        "matcher": MATCHER,
        "tree": _TREE,
        # "30s", "500ms", "1m", "1h": a bare number is refused, so a reader can tell what it means.
        "duration": {"type": "string", "pattern": r"^\d+(\.\d+)?(ms|s|m|h)$"},
    },
}
