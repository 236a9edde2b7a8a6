"""The code-scorer contract, as the product documents it, and the record every scorer receives.

A scorer gets `{input, expected, output}`: the scenario's prompt, its expected JSON (or null) and the run's
ScorerOutput. The TypeScript below is the product's own definition, reproduced field for field; the code
generator sends it to the model, and the sandbox passes records of exactly this shape. EvalHub adds a fourth key,
`run` (RunFacts, in RECORD_NOTES): how the run ended and what it spent, which the reference's three keys lack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

SCORER_SIGNATURE = "async ({ input, expected, output }) => number"

SCORER_TYPES = """\
type ScorerOutput = {
  text: string;
  transcript: TranscriptData;
  toolCalls: EvalToolCall[];
  allToolCalls: EvalToolCall[];
}

export type TranscriptData = {
  prompt: string;
  steps: Array<{
    text?: string;
    finishReason?: string;
    toolCalls?: Array<{
      toolName: string;
      args: Record<string, unknown>;
    }>;
    toolResults?: Array<{
      toolName: string;
      result: unknown;
    }>;
  }>;
  finalText?: string;
};

/**
 * Represents a single tool call recorded during an evaluation run
 */
export interface EvalToolCall {
  toolName: string;
  args: unknown;
  result: unknown;
  timestamp: number;
  /** Nested tool calls made within this call (e.g., MCP tools called inside code mode) */
  nestedCalls?: EvalToolCall[];
}
"""

# EvalHub records a little more than the product's minimum; scorers may read it.
RECORD_NOTES = """\
In EvalHub every EvalToolCall also has durationMs (number), isError (boolean) and, for tools with an output
schema, schemaValidation: {valid: boolean, message: string}. A tool `result` is the MCP CallToolResult:
{content: [{type: "text", text: string}, ...], structuredContent?: object, isError: boolean}.
`toolCalls` are the calls the agent made; `allToolCalls` also includes nested calls.
A conversation (scripted follow-ups or a simulated user) adds `transcript.userTurns`: the user's messages in order,
Array<{index: number; source: "prompt" | "scripted" | "simulated"; text: string; firstStep: number}>, where
index 0 is the scenario's prompt and firstStep is the index in `steps` of the first step answering that message
(a step belongs to the last turn whose firstStep is not after it); each of its EvalToolCalls has `userTurn`, the
index of the user turn it answers. A run of one prompt has neither.
EvalHub also passes a fourth key, `run`, beside input, expected and output:
type RunFacts = {
  model: string;
  toolMode: "direct" | "code"; // code: the agent's only tool was run_code; allToolCalls holds what its programs called
  stopReason: string | null; // completed, max_turns, max_tool_calls, time_limit, token_budget, cost_budget,
                             // user_done, max_user_turns, ...
  durationMs: number | null;
  turns: number; // model calls made
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  costUsd: number | null; // null when a model's price is unknown
}
so a scorer may be async ({ input, expected, output, run }) => number."""

# The product's example: its description for the AI generator, and the scorer it documents.
EXAMPLE_DESCRIPTION = (
    "Verify get_weather tool call execution. Score 0 when tool not called. When called, validate latitude "
    "parameter range (-90 to 90) and longitude parameter range (-180 to 180). Score 1 when both coordinates "
    "valid, otherwise 0."
)

EXAMPLE_SCORER = """\
async ({
  input,
  output: { text, transcript, toolCalls, allToolCalls },
  expected,
}) => {
  // Check if get_weather tool was called
  const weatherCalls = allToolCalls.filter(
    (tc) => tc.toolName === "get_weather"
  );

  if (weatherCalls.length === 0) {
    return 0;
  }

  // Validate coordinates in the first weather call
  const weatherCall = weatherCalls[0];
  const args = weatherCall.args || {};

  const latitude = args.latitude;
  const longitude = args.longitude;

  // Check if latitude is a number between -90 and 90
  const validLatitude =
    typeof latitude === "number" && latitude >= -90 && latitude <= 90;

  // Check if longitude is a number between -180 and 180
  const validLongitude =
    typeof longitude === "number" && longitude >= -180 && longitude <= 180;

  // Return 1 if both are valid, 0 otherwise
  return validLatitude && validLongitude ? 1 : 0;
};
"""


def run_facts(
    *,
    model: str,
    stop_reason: str,
    duration_ms: int | None,
    turns: int,
    input_tokens: int,
    output_tokens: int,
    cost_usd: Decimal | None,
    tool_mode: str = "direct",
) -> dict[str, Any]:
    """The record's `run` (RunFacts in RECORD_NOTES): JSON-ready, so a cost is a number, never a Decimal."""
    return {
        "model": model,
        "toolMode": tool_mode,
        "stopReason": stop_reason or None,
        "durationMs": duration_ms,
        "turns": turns,
        "usage": {
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "totalTokens": input_tokens + output_tokens,
        },
        "costUsd": float(cost_usd) if cost_usd is not None else None,
    }


def scorer_input(
    *,
    prompt: str,
    expected: Any,
    final_text: str,
    transcript: Mapping[str, Any],
    tool_calls: Sequence[Mapping[str, Any]],
    all_tool_calls: Sequence[Mapping[str, Any]],
    run: Mapping[str, Any],
) -> dict[str, Any]:
    """`{input, expected, output, run}` for one run, from what the run worker stored; `run` from `run_facts`."""
    return {
        "input": prompt,
        "expected": expected,
        "output": {
            "text": final_text,
            "transcript": dict(transcript),
            "toolCalls": list(tool_calls),
            "allToolCalls": list(all_tool_calls),
        },
        "run": dict(run),
    }


def sample_input() -> dict[str, Any]:
    """A record of a run that called no tool: what the code generator dry-runs new code against."""
    return scorer_input(
        prompt="",
        expected=None,
        final_text="",
        transcript={"prompt": "", "steps": [], "finalText": ""},
        tool_calls=[],
        all_tool_calls=[],
        run=run_facts(
            model="evalhub-offline",
            stop_reason="completed",
            duration_ms=0,
            turns=1,
            input_tokens=0,
            output_tokens=0,
            cost_usd=Decimal(0),
        ),
    )
