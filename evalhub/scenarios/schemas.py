"""The /scenarios API's request and response schemas (evalhub.scenarios.api serves them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema

from evalhub.api.common import COMPONENT_MARKER, Id
from evalhub.scenarios.models import DEFAULT_MAX_TOKENS
from runs.fault_injection.spec import FAULT_INJECTION_HELP

# A marker evalhub.api replaces by a reference to the component: pydantic refuses $refs to schemas it did not make.
EXPECTATIONS_FIELD_SCHEMA: dict[str, Any] = {COMPONENT_MARKER: "Expectations"}
TOOL_MODE_HELP = '"direct": the model calls the tools; "code": it is offered one tool, run_code, and writes JavaScript.'
EXPECTATIONS_HELP = "Declarative checks of a run (kinds and matchers in the Expectations schema), scored as one."
CONVERSATION_HELP = (
    'Empty: one prompt. {"turns": ["follow-up", ...]}: scripted user messages, each sent once the agent has '
    'answered. {"simulate": {"goal", "persona"?, "model"?, "provider_id"?, "max_user_turns"? (1-50, default 6), '
    '"goal_tool"?}}: a simulated user answering from `expected`, until it replies DONE, the agent calls goal_tool '
    "without an error, or max_user_turns."
)


class ScorerAttachmentOut(Schema):
    id: int
    name: str
    advisory: bool = Field(description="Shown and counted in the score, never failing a run.")
    threshold: float | None = Field(description="Where it passes; null: the scenario's pass_threshold.")


class ScorerAttachmentIn(Schema):
    id: Id
    advisory: bool = False
    threshold: float | None = Field(None, ge=0, le=1, description="null: the scenario's pass_threshold.")


SCORERS_HELP = (
    "The scenario's scorers and how each counts: gating at its own threshold (default: the scenario's) or advisory. "
    "Given, it replaces scorer_ids."
)


LEVEL_HELP = (
    "scenario (the agent loop), invocation (one model turn), execution (a tool call), resource (one resources/read) "
    "or prompt (one prompts/get); the last three make no model call."
)
PRIMITIVE_HELP = (
    'Resource level: {"uri": "travel://airports"} or {"template": "travel://airports/{code}", "arguments": '
    '{"code": "CDG"}}; prompt level: {"name": "plan_trip", "arguments": {"destination": "Tokyo"}} (strings). The '
    "run records the answer as a direct step named resources/read or prompts/get: expectations check it with "
    "tool_result on structuredContent (contents[i].text, .blob, .mimeType, .size; messages[i].content.text)."
)


class ScenarioOut(Schema):
    id: int
    name: str
    description: str
    prompt: str
    system_prompt: str
    server_id: int
    server_name: str
    provider_id: int
    provider_name: str
    model: str
    expected_tools: list[str]
    expected: Any = Field(None, description="Free JSON handed to scorers as `expected`.")
    expectations: list[dict[str, Any]] = Field(
        description=EXPECTATIONS_HELP, json_schema_extra=EXPECTATIONS_FIELD_SCHEMA
    )
    conversation: dict[str, Any] = Field(description=CONVERSATION_HELP)
    fault_injection: dict[str, Any] = Field(description=FAULT_INJECTION_HELP)
    tags: list[str]
    scorer_ids: list[int]
    scorers: list[ScorerAttachmentOut] = Field(description=SCORERS_HELP)
    pass_threshold: float
    tool_errors_expected: bool = Field(description="Tool errors neither fail the run nor blame the server.")
    tool_mode: str = Field(description=TOOL_MODE_HELP)
    level: str = Field(description=LEVEL_HELP)
    tool_call: dict[str, Any] | None = Field(description="Execution level: the tool to call, {tool, arguments}.")
    primitive: dict[str, Any] | None = Field(description=PRIMITIVE_HELP)
    shipped_eval_id: str = Field(description="The id of the eval its server ships that it was imported from, or ''.")
    max_turns: int
    max_tool_calls: int
    time_limit_seconds: int
    max_tokens: int = Field(description="The most output tokens one model call may produce.")
    token_budget: int | None = Field(description="Stop once the run's tokens reach this; null: no budget.")
    cost_budget_usd: float | None = Field(description="Stop once the run's cost reaches this (known prices only).")
    warnings: list[str] = Field(description="e.g. expected tools the server does not offer.")
    created_at: datetime
    updated_at: datetime


class ScenarioIn(Schema):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    prompt: str = Field(min_length=1)
    system_prompt: str = ""
    server_id: Id
    provider_id: Id | None = Field(None, description="Default: the first provider that serves `model`.")
    model: str = Field(min_length=1, max_length=200)
    expected_tools: list[str] = []
    expected: Any = None
    expectations: Any = Field([], description=EXPECTATIONS_HELP, json_schema_extra=EXPECTATIONS_FIELD_SCHEMA)
    conversation: Any = Field({}, description=CONVERSATION_HELP)
    fault_injection: Any = Field({}, description=FAULT_INJECTION_HELP)
    tags: list[str] = []
    scorer_ids: list[Id] = Field(
        [], description="Gating scorers. None: the default scorer (were the expected tools called, without errors?)."
    )
    scorers: list[ScorerAttachmentIn] | None = Field(None, max_length=100, description=SCORERS_HELP)
    pass_threshold: float = 0.7
    tool_errors_expected: bool = False
    tool_mode: Literal["direct", "code"] = Field("direct", description=TOOL_MODE_HELP)
    level: Literal["scenario", "resource", "prompt"] = Field("scenario", description=LEVEL_HELP)
    primitive: dict[str, Any] | None = Field(None, description=PRIMITIVE_HELP)
    max_turns: int = 10
    max_tool_calls: int = 25
    time_limit_seconds: int = 300
    max_tokens: int = DEFAULT_MAX_TOKENS
    token_budget: int | None = None
    cost_budget_usd: float | None = None


class ScenarioPatch(Schema):
    """Only the fields sent change."""

    name: str | None = Field(None, min_length=1, max_length=200)
    description: str | None = None
    prompt: str | None = Field(None, min_length=1)
    system_prompt: str | None = None
    server_id: Id | None = None
    provider_id: Id | None = None
    model: str | None = Field(None, min_length=1, max_length=200)
    expected_tools: list[str] | None = None
    expected: Any = None
    expectations: Any = Field(None, description=EXPECTATIONS_HELP, json_schema_extra=EXPECTATIONS_FIELD_SCHEMA)
    conversation: Any = Field(None, description=CONVERSATION_HELP)
    fault_injection: Any = Field(None, description=FAULT_INJECTION_HELP)
    tags: list[str] | None = None
    scorer_ids: list[Id] | None = None
    scorers: list[ScorerAttachmentIn] | None = Field(None, max_length=100, description=SCORERS_HELP)
    pass_threshold: float | None = None
    tool_errors_expected: bool | None = None
    tool_mode: Literal["direct", "code"] | None = Field(None, description=TOOL_MODE_HELP)
    level: Literal["scenario", "invocation", "execution", "resource", "prompt"] | None = Field(
        None, description=LEVEL_HELP + " Invocation and execution only stay as imported."
    )
    primitive: dict[str, Any] | None = Field(None, description=PRIMITIVE_HELP)
    max_turns: int | None = None
    max_tool_calls: int | None = None
    time_limit_seconds: int | None = None
    max_tokens: int | None = None
    token_budget: int | None = None
    cost_budget_usd: float | None = None


class ScenarioFilters(Schema):
    tag: str | None = Field(None, max_length=50)
    server_id: Id | None = None
    name: str | None = Field(None, max_length=200, description="Exact name.")
    q: str | None = Field(None, max_length=200, description="Part of the name.")


class RunStartIn(Schema):
    model: str | None = Field(None, max_length=200, description="Another model of the scenario's provider.")
