"""The mcptest v1 → EvalHub mapping, in one table: what the converter implements and what the report and docs say.

Each row: the mcptest field (a JSON-pointer-like path), where it goes in an EvalHub suite, and how. A field not in
this table is reported as unsupported with its pointer; a row whose target starts with "—" is reported too.
"""

from __future__ import annotations

MAPPING: tuple[tuple[str, str, str], ...] = (
    ("servers.<name>.command", "servers[].transport stdio, command, args", "first item is the program"),
    ("servers.<name>.url", "servers[].transport http (sse when the path ends in /sse), url", ""),
    ("servers.<name>.env", "servers[].env", "`${VAR}` values stay secret references"),
    ("servers.<name>.headers", "servers[].headers", "{env: NAME} becomes the secret reference ${NAME}"),
    ("servers.<name>.auth.bearer_token_env", "servers[].bearer_token", "as the reference ${NAME}"),
    ("servers.<name>.auth.oauth / wait_for_ready / http / cassette", "— unsupported", ""),
    ("variables.<name>.value", "interpolated at import into ${name} uses", ""),
    (
        "variables.<name>.from_env + default",
        "a whole env/header value: the secret reference ${FROM_ENV}; elsewhere the default",
        "never read at import; no default there: refused",
    ),
    ("providers.<name> (type openai)", "providers[]: base_url, api_key ${api_key_env}", "organization → header"),
    ("agents[].name, prompt, system_prompt", "scenarios[].name, prompt, system_prompt", ""),
    ("agents[].model / models[0]", "scenarios[].provider + model", "bare names use the import's provider"),
    ("agents[].models[1:]", "— approximated", "one model per scenario; compare with `evalhub run --models`"),
    ("agents[].servers[0]", "scenarios[].server", "further servers are reported"),
    ("agents[].max_turns, max_tool_calls, max_tokens, token_budget", "scenarios[]: same names", ""),
    ("agents[].time_budget", "scenarios[].time_limit_seconds", "rounded up, kept within 5..1200"),
    ("agents[].tags", "scenarios[].tags", ""),
    ("agents[].expect tool_calls[i].name exact", "tool_called", "position reported as approximated"),
    ("agents[].expect tool_calls[i].args.<path>", "tool_called args (call nth when earlier names are known)", ""),
    ("agents[].expect tool_calls.length exact N", "max_tool_calls max N", "exact only for 0"),
    (
        "agents[].expect tool_names exact / contains / contains-all / not {contains | contains-any}",
        "tool_sequence exact / tool_called / tool_not_called",
        "",
    ),
    ("agents[].expect redundant_tool_calls exact N", "no_redundant_calls allowance N", ""),
    ("agents[].expect tool_results[i].isError / result.<path>", "tool_result (tool from tool_calls[i].name)", ""),
    (
        "agents[].expect final_response",
        "final_answer equals/contains/icontains/regex/starts_with/is_json/json_schema/not_contains",
        "llm-judge → a judge scorer",
    ),
    ("agents[].expect conversation.stop_reason exact", "stop_reason", "budget names translated"),
    ("agents[].expect max_duration_ms (long form)", "max_duration_ms", ""),
    ("agents[].expect.message", "expectation description", ""),
    ("agents[].eval.rubric (string or criteria)", "a judge scorer attached to the scenario", "threshold → pass"),
    ("agents[].turns [{user}]", "scenarios[].prompt + conversation.turns", "a prompt given too is sent first"),
    (
        "agents[].turns.simulate goal, persona, max_turns",
        "scenarios[].conversation.simulate goal, persona, max_user_turns",
        "without a prompt the goal opens the conversation",
    ),
    (
        "agents[].expect conversation.per_turn[i].<target>",
        "the target's expectation with `turn`",
        "whole-run ones: reported",
    ),
    ("agents[].eval metrics / inject / recovery", "— unsupported", "reported"),
    (
        "tools[]",
        "execution-level scenarios[] (level, tool_call): the tool is called directly, no model",
        "expect on the result → tool_result expectations",
    ),
    ("evals[] (rubric string, criteria, ref)", "scenarios[] + a judge scorer", "threshold → pass_threshold"),
    (
        "resources, prompts, compliance, faults, budget, performance, target_versions, imports, fixtures, "
        "compositions, scorers, model_compatibility",
        "— unsupported",
        "each reported with its pointer",
    ),
)


def mapping_table() -> str:
    lines = ["mcptest field", "    → EvalHub (note)"]
    for source, target, note in MAPPING:
        lines += [source, f"    → {target}{f' ({note})' if note else ''}"]
    return "\n".join(lines)
