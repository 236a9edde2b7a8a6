"""`convert(data)`: an mcptest v1 suite (already parsed) as an EvalHub suite, and the report of every item.

The file is first checked against mcptest's own schema (`schema`): what mcptest refuses to load (an unknown key, a
wrong type) refuses the import, with its JSON pointer. Variables are interpolated as mcptest does (`context`):
`value`s here, environment variables when the run starts. Problems that refuse the import are in
`Conversion.problems`; everything else is an item of the report (`report`): imported exactly, approximated (the
note names how) or refused (the note says why).

Defaults are mcptest's: max_tokens 1024, max_turns 10. mcptest leaves tool calls and time unbounded where EvalHub
needs a bound: those runs get EvalHub's largest (500 tool calls, 1200 s), reported as an approximation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evalhub.suites.mcptest.context import Context, Variable, env_name
from evalhub.suites.mcptest.expect import Note, map_expects
from evalhub.suites.mcptest.faults import agent_fault_injection
from evalhub.suites.mcptest.file_check import schema_errors
from evalhub.suites.mcptest.report import Counts, classify, count
from evalhub.suites.mcptest.tools import tool_test
from evalhub.suites.mcptest.turns import prompt_and_conversation
from evalhub.suites.schema import FORMAT_VERSION
from scorers.judge import VERDICT_LABELS

__all__ = ["Conversion", "Note", "convert"]

UNSUPPORTED_SECTIONS = {
    "resources": "resource-read tests are not imported yet (EvalHub's resource level reads one resource, but "
    "mcptest's result assertions do not map onto it)",
    "prompts": "prompt-get tests are not imported yet (EvalHub's prompt level gets one prompt, but mcptest's "
    "result assertions do not map onto it)",
    "compliance": "protocol compliance checks are not part of EvalHub",
    "budget": "per-suite spend caps: use each scenario's cost budget",
    "target_versions": "EvalHub negotiates the protocol version itself",
    "model_compatibility": "metadata only; run several models with `evalhub run --models`",
    "imports": "imported files are not followed; import each file",
    "fixtures": "named error injection is not supported",
    "compositions": "tool-call DAGs are not supported",
    "scorers": "external exec scorers are not supported; write a code scorer",
    "defaultTest": "test defaults are not supported",
}
# mcptest's defaults where they differ from EvalHub's (a scenario's are 4096 tokens, 25 tool calls, 300 s).
MAX_TOKENS = 1024
# mcptest leaves tool calls and time unbounded; EvalHub bounds every run, at most by these.
MOST_TOOL_CALLS, MOST_SECONDS = 500, 1200


@dataclass
class Conversion:
    suite: dict[str, Any]
    notes: list[Note] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (pointer, message)
    items: dict[str, str] = field(default_factory=dict)  # pointer → "exact", "approximated" or "refused"

    @property
    def counts(self) -> Counts:
        return count(self.items)

    def report(self) -> str:
        if not self.notes:
            return f"Everything in the mcptest suite carried over exactly. {self.counts}"
        lines = [str(self.counts), f"{len(self.notes)} note(s) on what did not carry over exactly:"]
        return "\n".join([*lines, *(f"  {note}" for note in self.notes)])


def convert(data: Any, *, provider: str, model: str) -> Conversion:
    """`provider`/`model`: what scenarios run on when an agent names a bare model, and what tool tests use."""
    suite: dict[str, list[dict[str, Any]]] = {"servers": [], "providers": [], "scorers": [], "scenarios": []}
    context = Context({}, provider, model, [], suite)
    if problems := schema_errors(data):
        return Conversion({"version": FORMAT_VERSION, **suite}, [], problems)
    for key, value in data.items():
        if key in UNSUPPORTED_SECTIONS:
            entries = range(len(value)) if isinstance(value, list) else [None]
            for index in entries:
                context.unsupported(f"/{key}" if index is None else f"/{key}/{index}", UNSUPPORTED_SECTIONS[key])
    context.variables = _variables(data.get("variables") or {}, context)
    for name, spec in (data.get("servers") or {}).items():
        _server(name, spec, f"/servers/{name}", context)
    for name, spec in (data.get("providers") or {}).items():
        _provider(name, spec, f"/providers/{name}", context)
    for index, agent in enumerate(data.get("agents") or []):
        _agent(agent, f"/agents/{index}", context, data.get("faults"))
    default_timeout = (data.get("performance") or {}).get("default_timeout_ms")
    for index, test in enumerate(data.get("tools") or []):
        tool_test(test, default_timeout, f"/tools/{index}", context)
    for index, evaluation in enumerate(data.get("evals") or []):
        _eval(evaluation, data.get("rubrics") or {}, f"/evals/{index}", context)
    _performance(data.get("performance") or {}, context)
    _provider_models(context)
    conversion = Conversion({"version": FORMAT_VERSION, **suite}, context.notes, sorted(set(context.problems)))
    conversion.items = classify(context.items, context.notes)
    return conversion


def _variables(specs: Mapping[str, Any], context: Context) -> dict[str, Variable]:
    variables = {}
    for name, spec in specs.items():
        pointer = f"/variables/{name}"
        context.items.append(pointer)
        if "from_env" in spec:
            env = env_name(spec["from_env"])
            if not env:
                context.unsupported(f"{pointer}/from_env", "not an environment variable name")
                continue
            variables[name] = Variable(spec.get("default"), env)
        else:
            value = spec["value"]
            # YAML's true is mcptest's "true" (serde's to_string), not Python's "True".
            variables[name] = Variable(str(value).lower() if isinstance(value, bool) else str(value))
    return variables


def _server(name: str, spec: Mapping[str, Any], pointer: str, context: Context) -> None:
    context.items.append(pointer)
    entry: dict[str, Any] = {"name": name}
    if "command" in spec:
        parts = [context.expand(part, f"{pointer}/command/{i}") for i, part in enumerate(spec["command"])]
        entry |= {"transport": "stdio", "command": parts[0], "args": parts[1:]}
    elif "url" in spec:
        url = context.expand(spec["url"], f"{pointer}/url")
        entry |= {"transport": "sse" if url.rstrip("/").endswith("/sse") else "http", "url": url}
    else:
        context.unsupported(pointer, "cassette (replay) servers are not supported: only command and url")
        return
    if spec.get("env"):
        entry["env"] = {k: context.secret(v, f"{pointer}/env/{k}") for k, v in spec["env"].items()}
    headers = {}
    for header, value in (spec.get("headers") or {}).items():
        where = f"{pointer}/headers/{header}"
        headers[header] = f"${{{value['env']}}}" if isinstance(value, Mapping) else context.secret(value, where)
    if headers:
        entry["headers"] = headers
    auth = spec.get("auth") or {}
    if "bearer_token_env" in auth:
        entry["bearer_token"] = f"${{{context.expand(auth['bearer_token_env'], f'{pointer}/auth/bearer_token_env')}}}"
    for key in auth:
        if key != "bearer_token_env":
            context.unsupported(f"{pointer}/auth/{key}", "only auth.bearer_token_env is supported")
    if "http" in spec and "url" in spec:
        entry |= _http_settings(spec["http"], f"{pointer}/http", context)
    for key in spec:
        if key not in ("command", "url", "env", "headers", "auth", "http"):
            context.unsupported(f"{pointer}/{key}", "no EvalHub server setting for this")
    context.suite["servers"].append(entry)


def _http_settings(http: Any, pointer: str, context: Context) -> dict[str, Any]:
    """mcptest's `server.http` block as EvalHub's HTTP transport settings (durations like 30s, 500ms)."""
    found: dict[str, Any] = {}
    tls = http.get("tls") if isinstance(http, Mapping) else None
    items = [*((k, v) for k, v in http.items() if k != "tls")] if isinstance(http, Mapping) else []
    items += [(f"tls/{k}", v) for k, v in tls.items()] if isinstance(tls, Mapping) else []
    for key, value in items:
        where = f"{pointer}/{key}"
        duration = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)", str(value).strip())
        seconds = (
            float(duration.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[duration.group(2)] if duration else 0
        )
        if key in ("timeout", "connect_timeout") and 0 < seconds <= 3600:
            found["http_timeout" if key == "timeout" else "connect_timeout"] = seconds
        elif key == "max_redirects" and type(value) is int and 0 <= value <= 50:
            found["max_redirects"] = value
        elif key == "user_agent_override" and value is True:
            pass  # EvalHub always sends a User-Agent given in `headers`, as mcptest does with this on
        elif key == "tls/insecure_skip_verify" and isinstance(value, bool):
            found["tls_insecure_skip_verify"] = value
        elif key == "tls/ca_bundle_path" and isinstance(value, str):
            found["tls_ca_bundle_path"] = context.expand(value, where)
        elif key == "tls/min_version" and str(value) in ("1.2", "1.3"):
            found["tls_min_version"] = str(value)
        else:
            context.unsupported(where, "not an HTTP setting EvalHub has, or a value it cannot take")
    return found


def _provider(name: str, spec: Mapping[str, Any], pointer: str, context: Context) -> None:
    context.items.append(pointer)
    entry: dict[str, Any] = {"name": name, "base_url": context.expand(spec["base_url"], f"{pointer}/base_url")}
    if spec.get("api_key_env"):
        entry["api_key"] = f"${{{spec['api_key_env']}}}"
    if spec.get("organization"):
        entry["headers"] = {"OpenAI-Organization": context.secret(spec["organization"], f"{pointer}/organization")}
    context.suite["providers"].append(entry)


def _provider_models(context: Context) -> None:
    """Each imported provider serves the models its tests name, so pickers and `evalhub run --models` see them."""
    used: dict[str, list[str]] = {}
    for scenario in context.suite["scenarios"]:
        used.setdefault(scenario["provider"], []).append(scenario["model"])
    for entry in context.suite["providers"]:
        if models := list(dict.fromkeys(used.get(entry["name"], []))):
            entry["models"] = models


def _model(value: Any, pointer: str, context: Context) -> tuple[str, str]:
    if isinstance(value, Mapping):
        return value["provider"], value["id"]
    context.notes.append(
        Note(pointer, "approximated", f"runs on provider {context.provider!r} (choose with --provider)")
    )
    return context.provider, value


def _judge(scenario: dict[str, Any], rubric: str, threshold: Any, context: Context) -> None:
    """A judge scorer grading against `rubric`, attached to the scenario; the threshold becomes its pass mark."""
    taken = {entry["name"] for entry in context.suite["scorers"]}
    name, n = f"{scenario['name']} rubric", 2
    while name in taken:
        name, n = f"{scenario['name']} rubric {n}", n + 1
    prompt = (
        "Grade the agent's run against this rubric. Answer PASS when the run meets it, FAIL otherwise.\n\n"
        f"Rubric:\n{rubric.strip()}"
    )
    context.suite["scorers"].append({"name": name, "kind": "judge", "system_prompt": prompt, "labels": VERDICT_LABELS})
    scenario.setdefault("scorers", []).append(name)
    if isinstance(threshold, int | float):
        scenario["pass_threshold"] = float(threshold)


METRICS = ("mcp_task_completion", "mcp_use", "argument_correctness", "plan_quality", "multi_turn_mcp_use")


def _limits(scenario: dict[str, Any], test: Mapping[str, Any], pointer: str, context: Context) -> None:
    """mcptest's run limits and defaults; what it leaves unbounded gets EvalHub's largest bound, reported."""
    scenario["max_tokens"] = test.get("max_tokens", MAX_TOKENS)
    scenario["max_turns"] = test.get("max_turns", 10)
    for key in ("max_tool_calls", "token_budget"):
        if key in test:
            scenario[key] = test[key]
    if "time_budget" in test:
        scenario["time_limit_seconds"] = _seconds(test["time_budget"], f"{pointer}/time_budget", context)
    unbounded = [key for key in ("max_tool_calls", "time_budget") if key not in test]
    if "max_tool_calls" not in test:
        scenario["max_tool_calls"] = MOST_TOOL_CALLS
    if "time_budget" not in test:
        scenario["time_limit_seconds"] = MOST_SECONDS
    if unbounded:
        reason = (
            f"no {' or '.join(unbounded)}: unbounded in mcptest; EvalHub bounds every run, here at its largest "
            f"({MOST_TOOL_CALLS} tool calls, {MOST_SECONDS} s)"
        )
        context.notes.append(Note(pointer, "approximated", reason))


def _agent(agent: Mapping[str, Any], pointer: str, context: Context, faults: Any) -> None:
    context.items.append(pointer)
    models = agent.get("models") or [agent["model"]]
    provider, model = _model(models[0], f"{pointer}/{'models/0' if 'models' in agent else 'model'}", context)
    for index in range(1, len(models)):
        context.notes.append(
            Note(f"{pointer}/models/{index}", "approximated", "one model per scenario: run it with --models")
        )
    for index in range(1, len(agent["servers"])):
        context.unsupported(f"{pointer}/servers/{index}", "a scenario uses one server")
    scenario: dict[str, Any] = {
        "name": context.scenario_name(agent["name"], pointer),
        "server": agent["servers"][0],
        "provider": provider,
        "model": model,
    }
    turn_offset = prompt_and_conversation(scenario, agent, pointer, context)
    if agent.get("system_prompt"):
        scenario["system_prompt"] = context.text(agent["system_prompt"], f"{pointer}/system_prompt")
    _limits(scenario, agent, pointer, context)
    if agent.get("tags"):
        scenario["tags"] = context.tags(agent["tags"], pointer)
    expect = context.texts(agent.get("expect"), f"{pointer}/expect")
    context.items += _assertion_pointers(expect, f"{pointer}/expect")
    mapped = map_expects(expect, f"{pointer}/expect", turn_offset=turn_offset)
    context.notes += mapped.notes
    if mapped.expectations:
        scenario["expectations"] = mapped.expectations
    for rubric in mapped.rubrics:
        _judge(scenario, rubric["rubric"], rubric["threshold"], context)
    for key, value in (agent.get("eval") or {}).items():
        context.items.append(f"{pointer}/eval/{key}")
        if key == "rubric" and (text := _rubric_text(value, f"{pointer}/eval/rubric", {}, context)):
            _judge(scenario, text, value.get("threshold") if isinstance(value, Mapping) else None, context)
        elif key != "rubric":
            context.unsupported(f"{pointer}/eval/{key}", "judged trace metrics are not supported; use a judge scorer")
    if injected := agent_fault_injection(agent, faults, scenario["server"], pointer, context):
        context.items.append(f"{pointer}/inject")
        scenario["fault_injection"] = injected
    context.scenario_variables(scenario)
    context.suite["scenarios"].append(scenario)


def _assertion_pointers(expect: Any, pointer: str) -> list[str]:
    if isinstance(expect, Mapping):
        keys = [f"{pointer}/{key}" for key in expect if key != "assertions"]
        return keys + _assertion_pointers(expect.get("assertions") or [], f"{pointer}/assertions")
    return [f"{pointer}/{index}" for index in range(len(expect or []))]


def _seconds(value: str, pointer: str, context: Context) -> int:
    found = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)", value.strip())
    assert found is not None  # the schema's duration pattern
    seconds = float(found.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[found.group(2)]
    kept = min(max(math.ceil(seconds), 5), MOST_SECONDS)
    if kept != seconds:
        context.notes.append(Note(pointer, "approximated", f"time limit {kept} s (EvalHub allows 5 to 1200 s)"))
    return kept


def _rubric_text(rubric: Any, pointer: str, named: Mapping[str, Any], context: Context) -> str:
    if isinstance(rubric, Mapping) and "ref" in rubric:
        if rubric["ref"] not in named:
            context.unsupported(pointer, f"no rubric named {rubric['ref']!r} under rubrics")
            return ""
        return _rubric_text(named[rubric["ref"]], pointer, named, context)
    if isinstance(rubric, str):
        return context.expand(rubric, pointer)
    if isinstance(rubric, Mapping) and rubric.get("criteria"):
        lines = [
            f"- {c['name']} (weight {c.get('weight', 1)}): {c.get('description', '')}".rstrip(": ")
            for c in rubric["criteria"]
        ]
        context.notes.append(Note(pointer, "approximated", "weighted criteria judged together, as one rubric"))
        return context.expand("Meet these criteria (weights say how much each counts):\n" + "\n".join(lines), pointer)
    context.unsupported(pointer, "decision-tree rubrics are not supported")
    return ""


def _performance(performance: Mapping[str, Any], context: Context) -> None:
    if "default_timeout_ms" in performance:
        context.items.append("/performance/default_timeout_ms")
    if "p95_latency_ms" in performance:
        context.items.append("/performance/p95_latency_ms")
        context.unsupported("/performance/p95_latency_ms", "suite-wide latency percentiles: use max_duration_ms")


def _eval(evaluation: Mapping[str, Any], named: Mapping[str, Any], pointer: str, context: Context) -> None:
    context.items.append(pointer)
    scenario: dict[str, Any] = {
        "name": context.scenario_name(evaluation["name"], pointer),
        "server": evaluation["server"],
        "provider": context.provider,
        "model": context.model,
        "prompt": context.text(evaluation["prompt"], f"{pointer}/prompt"),
    }
    _limits(scenario, {}, pointer, context)
    rubric = evaluation.get("rubric")
    text = _rubric_text(rubric, f"{pointer}/rubric", named, context) if rubric is not None else ""
    threshold = evaluation.get("threshold", rubric.get("threshold") if isinstance(rubric, Mapping) else None)
    if text:
        _judge(scenario, text, threshold if threshold is not None else 0.7, context)
    context.scenario_variables(scenario)
    context.suite["scenarios"].append(scenario)
