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
    (
        "servers.<name>.http (timeout, connect_timeout, max_redirects, tls.*)",
        "servers[].http_timeout, connect_timeout, max_redirects, tls_insecure_skip_verify, tls_ca_bundle_path, "
        "tls_min_version",
        "user_agent_override: true is EvalHub's behaviour (a User-Agent header is sent as given)",
    ),
    ("servers.<name>.auth.oauth / wait_for_ready / cassette", "— unsupported", ""),
    ("variables.<name>.value", "interpolated at import into ${name} uses", ""),
    (
        "variables.<name>.from_env + default, ${VAR:?}, ${VAR:-default}, $VAR",
        "scenarios[].variables, read by the worker when a run starts; a whole env/header value: the secret "
        "reference ${VAR}; a server URL/command or rubric: the default",
        "never read at import; unset at run start: the run errs (inconclusive)",
    ),
    ("$$", "a literal $", ""),
    (
        "providers.<name> (type openai)",
        "providers[]: base_url, api_key ${api_key_env}, models (those its tests name)",
        "organization → header",
    ),
    ("agents[].name, prompt, system_prompt", "scenarios[].name, prompt, system_prompt", ""),
    ("agents[].model / models[0]", "scenarios[].provider + model", "bare names use the import's provider"),
    ("agents[].models[1:]", "— approximated", "one model per scenario; compare with `evalhub run --models`"),
    ("agents[].servers[0]", "scenarios[].server", "further servers are reported"),
    (
        "agents[].max_turns, max_tool_calls, max_tokens, token_budget",
        "scenarios[]: same names",
        "defaults max_tokens 1024, max_turns 10; unbounded tool calls: 500 (reported)",
    ),
    (
        "agents[].time_budget",
        "scenarios[].time_limit_seconds",
        "rounded up, kept within 5..1200; none: 1200 (reported)",
    ),
    ("agents[].tags", "scenarios[].tags", ""),
    (
        "expect matchers: exact, contains, contains-all, contains-any, icontains, starts-with, regex, schema, "
        "is-json, is-xml, is-valid-tools-call, levenshtein, snapshot, not, allOf, anyOf, oneOf (nested)",
        "$-matchers: literal/$equals, $contains, $containsAll, $containsAny, $icontains, $startsWith, $regex, "
        "$schema, $isJson, $isXml, $levenshtein, $snapshot, $not, $allOf, $anyOf, $exactlyOne",
        "llm-jury, similar, cel, is-sql, factuality, answer-relevance, context-faithfulness: refused with the reason",
    ),
    ("expect transform: jq <program>", "the expectation's transform (jq, in process)", "other commands: refused"),
    ("agents[].expect tool_calls[i].name", "tool_names with transform .[i]", ""),
    ("agents[].expect tool_calls[i].args.<path>", "tool_called args (call nth when earlier names are known)", ""),
    ("agents[].expect tool_calls.length / tool_names", "tool_names (transform length for the count)", ""),
    ("agents[].expect redundant_tool_calls exact N", "no_redundant_calls allowance N", ""),
    (
        "agents[].expect tool_results[i].isError / result.<path>",
        "tool_result matches (tool from tool_calls[i].name)",
        "",
    ),
    ("agents[].expect final_response", "final_answer matches", "llm-judge → a judge scorer"),
    ("agents[].expect conversation.stop_reason exact", "stop_reason", "budget names translated"),
    ("agents[].expect max_duration_ms (long form)", "max_duration_ms", ""),
    ("agents[].expect.message, tools[].expect.message", "expectation description", ""),
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
    ("agents[].eval metrics", "— unsupported", "reported"),
    (
        "faults[] + agents[].inject + agents[].recovery",
        "scenarios[].fault_injection {faults, recovery}",
        "hangs wait the server's request timeout, not virtual time",
    ),
    (
        "tools[]",
        "execution-level scenarios[] (level, tool_call): the tool is called directly, no model",
        "expect (short or long form) → tool_result expectations, all gating; message → description; "
        "max_duration_ms → max_duration_ms; timeout_ms → time_limit_seconds",
    ),
    ("evals[] (rubric string, criteria, ref)", "scenarios[] + a judge scorer", "threshold → pass_threshold"),
    (
        "resources, prompts, compliance, budget, performance, target_versions, imports, fixtures, "
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
