"""`convert(data)`: an mcptest v1 suite (already parsed) as an EvalHub suite, and notes on what did not carry over.

Variables are interpolated here, once (`value`; for `from_env`, see `context`: never read from the environment
here). A `${NAME}` that names no variable is left alone: in env and header values it is a secret reference;
elsewhere it is reported, since EvalHub does not interpolate prompts. Problems that refuse the import (a `from_env`
variable with no default used where no reference can stand) are in `Conversion.problems`.
"""

from __future__ import annotations

import copy
import math
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evalhub.server_evals.mapping import execution_prompt
from evalhub.suites.mcptest.context import Context, Variable, env_name
from evalhub.suites.mcptest.expect import Note, map_expects
from evalhub.suites.mcptest.shape import shape_problems
from evalhub.suites.mcptest.turns import prompt_and_conversation
from evalhub.suites.schema import FORMAT_VERSION
from scorers.judge import VERDICT_LABELS

__all__ = ["Conversion", "Note", "convert"]

UNSUPPORTED_SECTIONS = {
    "resources": "resource-read tests have no EvalHub equivalent yet",
    "prompts": "prompt-get tests have no EvalHub equivalent yet",
    "compliance": "protocol compliance checks are not part of EvalHub",
    "faults": "fault injection is not supported",
    "budget": "per-suite spend caps: use each scenario's cost budget",
    "performance": "latency budgets: use a max_duration_ms expectation per scenario",
    "target_versions": "EvalHub negotiates the protocol version itself",
    "model_compatibility": "metadata only; run several models with `evalhub run --models`",
    "imports": "imported files are not followed; import each file",
    "fixtures": "named error injection is not supported",
    "compositions": "tool-call DAGs are not supported",
    "scorers": "external exec scorers are not supported; write a code scorer",
    "defaultTest": "test defaults are not supported",
}
KNOWN = {"servers", "variables", "providers", "agents", "tools", "evals", "rubrics", *UNSUPPORTED_SECTIONS}


@dataclass
class Conversion:
    suite: dict[str, Any]
    notes: list[Note] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (pointer, message)

    def report(self) -> str:
        if not self.notes:
            return "Everything in the mcptest suite carried over."
        lines = [f"{len(self.notes)} item(s) did not carry over exactly:"]
        return "\n".join([*lines, *(f"  {note}" for note in self.notes)])


def convert(data: Any, *, provider: str, model: str) -> Conversion:
    """`provider`/`model`: what scenarios run on when an agent names a bare model, and what tool tests use."""
    suite: dict[str, list[dict[str, Any]]] = {"servers": [], "providers": [], "scorers": [], "scenarios": []}
    context = Context({}, provider, model, [], suite)
    if problems := shape_problems(data):
        return Conversion({"version": FORMAT_VERSION, **suite}, [], problems)
    for key in data:
        if key in UNSUPPORTED_SECTIONS:
            context.unsupported(f"/{key}", UNSUPPORTED_SECTIONS[key])
        elif key not in KNOWN:
            context.unsupported(f"/{key}", "not an mcptest v1 key")
    context.variables = _variables(data.get("variables") or {}, context)
    for name, spec in (data.get("servers") or {}).items():
        _server(str(name), spec, f"/servers/{name}", context)
    for name, spec in (data.get("providers") or {}).items():
        _provider(str(name), spec, f"/providers/{name}", context)
    for index, agent in enumerate(data.get("agents") or []):
        _agent(agent, f"/agents/{index}", context)
    for index, test in enumerate(data.get("tools") or []):
        _tool_test(test, f"/tools/{index}", context)
    for index, evaluation in enumerate(data.get("evals") or []):
        _eval(evaluation, data.get("rubrics") or {}, f"/evals/{index}", context)
    return Conversion({"version": FORMAT_VERSION, **suite}, context.notes, sorted(set(context.problems)))


def _variables(specs: Mapping[str, Any], context: Context) -> dict[str, Variable]:
    variables = {}
    for name, spec in specs.items():
        pointer = f"/variables/{name}"
        if "from_env" in spec:
            env = env_name(spec["from_env"])
            if not env:
                context.unsupported(f"{pointer}/from_env", "not an environment variable name")
            default = str(spec["default"]) if "default" in spec else None
            if env or default is not None:
                variables[str(name)] = Variable(default, env)
        elif "value" in spec:
            variables[str(name)] = Variable(str(spec["value"]))
        else:
            context.unsupported(pointer, "a variable needs a value or from_env")
    return variables


def _server(name: str, spec: Mapping[str, Any], pointer: str, context: Context) -> None:
    entry: dict[str, Any] = {"name": name}
    if "command" in spec:
        command = spec["command"]
        parts = (
            shlex.split(context.expand(command, f"{pointer}/command"))
            if isinstance(command, str)
            else [context.expand(part, f"{pointer}/command/{i}") for i, part in enumerate(command)]
        )
        entry |= {"transport": "stdio", "command": parts[0] if parts else "", "args": parts[1:]}
    elif "url" in spec:
        url = context.expand(spec["url"], f"{pointer}/url")
        entry |= {"transport": "sse" if url.rstrip("/").endswith("/sse") else "http", "url": url}
    else:
        context.unsupported(pointer, "only command and url servers are supported (not cassette)")
        return
    if spec.get("env"):
        entry["env"] = {str(k): context.secret(v, f"{pointer}/env/{k}") for k, v in spec["env"].items()}
    headers = {}
    for header, value in (spec.get("headers") or {}).items():
        where = f"{pointer}/headers/{header}"
        headers[str(header)] = f"${{{value['env']}}}" if isinstance(value, Mapping) else context.secret(value, where)
    if headers:
        entry["headers"] = headers
    auth = spec.get("auth") or {}
    if "bearer_token_env" in auth:
        entry["bearer_token"] = f"${{{context.expand(auth['bearer_token_env'], f'{pointer}/auth/bearer_token_env')}}}"
    for key in auth:
        if key != "bearer_token_env":
            context.unsupported(f"{pointer}/auth/{key}", "only auth.bearer_token_env is supported")
    for key in spec:
        if key not in ("command", "url", "env", "headers", "auth"):
            context.unsupported(f"{pointer}/{key}", "no EvalHub server setting for this")
    context.suite["servers"].append(entry)


def _provider(name: str, spec: Mapping[str, Any], pointer: str, context: Context) -> None:
    entry: dict[str, Any] = {"name": name, "base_url": context.expand(spec.get("base_url", ""), f"{pointer}/base_url")}
    if spec.get("api_key_env"):
        entry["api_key"] = f"${{{spec['api_key_env']}}}"
    if spec.get("organization"):
        entry["headers"] = {"OpenAI-Organization": context.secret(spec["organization"], f"{pointer}/organization")}
    for key in spec:
        if key not in ("type", "base_url", "api_key_env", "organization"):
            context.unsupported(f"{pointer}/{key}", "no EvalHub provider setting for this")
    context.suite["providers"].append(entry)


def _model(value: Any, pointer: str, context: Context) -> tuple[str, str]:
    if isinstance(value, Mapping):
        return str(value.get("provider", context.provider)), str(value.get("id", ""))
    context.notes.append(
        Note(pointer, "approximated", f"runs on provider {context.provider!r} (choose with --provider)")
    )
    return context.provider, str(value)


def _scenario_name(name: str, pointer: str, context: Context) -> str:
    taken = {entry["name"] for entry in context.suite["scenarios"]}
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name} ({n})", n + 1
    if unique != name:
        context.notes.append(Note(f"{pointer}/name", "approximated", f"renamed to {unique!r}: the name is taken"))
    return unique


def _tags(values: Any, pointer: str, context: Context) -> list[str]:
    tags = []
    for index, tag in enumerate(values or []):
        slug = re.sub(r"[^-a-zA-Z0-9_]+", "-", str(tag)).strip("-")[:50]
        if slug != tag:
            context.notes.append(Note(f"{pointer}/tags/{index}", "approximated", f"tag written as {slug!r}"))
        if slug and slug not in tags:
            tags.append(slug)
    return tags


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


AGENT_FIELDS = {"name", "model", "models", "servers", "prompt", "system_prompt", "max_turns", "max_tokens", "turns"}
AGENT_UNSUPPORTED = {
    "inject": "fault injection is not supported",
    "recovery": "fault recovery gates are not supported",
}
AGENT_FIELDS |= {"token_budget", "max_tool_calls", "time_budget", "tags", "expect", "eval"}


def _agent(agent: Mapping[str, Any], pointer: str, context: Context) -> None:
    if not ("prompt" in agent or agent.get("turns")):
        context.unsupported(pointer, "an agent needs a prompt or turns")
        return
    models = agent.get("models") or ([agent["model"]] if "model" in agent else [])
    if not models or not agent.get("servers"):
        context.unsupported(pointer, "an agent needs a model and a server")
        return
    provider, model = _model(models[0], f"{pointer}/{'models/0' if 'models' in agent else 'model'}", context)
    for index in range(1, len(models)):
        context.notes.append(
            Note(f"{pointer}/models/{index}", "approximated", "one model per scenario: run it with --models")
        )
    for index in range(1, len(agent["servers"])):
        context.unsupported(f"{pointer}/servers/{index}", "a scenario uses one server")
    scenario: dict[str, Any] = {
        "name": _scenario_name(str(agent.get("name", f"agent {pointer}")), pointer, context),
        "server": str(agent["servers"][0]),
        "provider": provider,
        "model": model,
    }
    turn_offset = prompt_and_conversation(scenario, agent, pointer, context)
    if agent.get("system_prompt"):
        scenario["system_prompt"] = context.text(agent["system_prompt"], f"{pointer}/system_prompt")
    for key in ("max_turns", "max_tool_calls", "max_tokens", "token_budget"):
        if isinstance(agent.get(key), int):
            scenario[key] = agent[key]
    if "time_budget" in agent:
        scenario["time_limit_seconds"] = _seconds(agent["time_budget"], f"{pointer}/time_budget", context)
    if agent.get("tags"):
        scenario["tags"] = _tags(agent["tags"], pointer, context)
    mapped = map_expects(agent.get("expect"), f"{pointer}/expect", turn_offset=turn_offset)
    context.notes += mapped.notes
    if mapped.expectations:
        scenario["expectations"] = mapped.expectations
    for rubric in mapped.rubrics:
        _judge(scenario, rubric["rubric"], rubric["threshold"], context)
    for key, value in (agent.get("eval") or {}).items():
        if key == "rubric" and (text := _rubric_text(value, f"{pointer}/eval/rubric", {}, context)):
            _judge(scenario, text, value.get("threshold") if isinstance(value, Mapping) else None, context)
        elif key != "rubric":
            context.unsupported(f"{pointer}/eval/{key}", "judged trace metrics are not supported; use a judge scorer")
    for key in agent:
        if key not in AGENT_FIELDS:
            context.unsupported(f"{pointer}/{key}", AGENT_UNSUPPORTED.get(key, "not supported for agent tests"))
    context.suite["scenarios"].append(scenario)


def _seconds(value: Any, pointer: str, context: Context) -> int:
    found = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)", str(value).strip())
    if not found:
        context.unsupported(pointer, "not a duration like 30s; the default limit applies")
        return 300
    seconds = float(found.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[found.group(2)]
    kept = min(max(math.ceil(seconds), 5), 1200)
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
        return rubric
    if isinstance(rubric, Mapping) and rubric.get("criteria"):
        lines = [
            f"- {c.get('name', '')} (weight {c.get('weight', 1)}): {c.get('description', '')}".rstrip(": ")
            for c in rubric["criteria"]
        ]
        context.notes.append(Note(pointer, "approximated", "weighted criteria judged together, as one rubric"))
        return "Meet these criteria (weights say how much each counts):\n" + "\n".join(lines)
    context.unsupported(pointer, "decision-tree rubrics are not supported")
    return ""


def _tool_test(test: Mapping[str, Any], pointer: str, context: Context) -> None:
    if not test.get("tool") or not test.get("server"):
        context.unsupported(pointer, "a tool test needs a server and a tool")
        return
    tool, args = str(test["tool"]), _expanded(test.get("args") or {}, f"{pointer}/args", context)
    expectations: list[dict[str, Any]] = [{"kind": "tool_called", "tool": tool, "args": args, "match": "exact"}]
    for index, item in enumerate(test.get("expect") or []):
        target, matcher = str(item.get("target", "")), item.get("matcher")
        where = f"{pointer}/expect/{index}/matcher"
        expanded = {"target": f"tool_results[0].{target}", "matcher": _expanded(matcher, where, context)}
        mapped = map_expects([{"target": "tool_calls[0].name", "matcher": {"exact": tool}}, expanded], "")
        if target.startswith("result") and mapped.expectations[1:]:
            expectations += mapped.expectations[1:]
        else:
            kind = next(iter(matcher), "?") if isinstance(matcher, Mapping) else "?"
            context.unsupported(f"{pointer}/expect/{index}", f"target {target!r} with matcher {kind!r} does not map")
    for key in test:
        if key not in ("name", "server", "tool", "args", "expect", "tags"):
            context.unsupported(f"{pointer}/{key}", "not supported for tool tests")
    scenario = {
        "name": _scenario_name(str(test.get("name", tool)), pointer, context),
        "server": str(test["server"]),
        "provider": context.provider,
        "model": context.model,
        # mcptest calls the tool itself, with no model: EvalHub's execution level does the same.
        "level": "execution",
        # A copy: one object in two places would be written out as a YAML anchor and alias.
        "tool_call": {"tool": tool, "arguments": copy.deepcopy(args)},
        "prompt": execution_prompt(tool, args),
        "max_turns": 1,
        "expected_tools": [tool],
        "expectations": expectations,
    }
    if test.get("tags"):
        scenario["tags"] = _tags(test["tags"], pointer, context)
    context.suite["scenarios"].append(scenario)


def _expanded(value: Any, pointer: str, context: Context) -> Any:
    if isinstance(value, str):
        return context.expand(value, pointer)
    if isinstance(value, Mapping):
        return {str(k): _expanded(v, f"{pointer}/{k}", context) for k, v in value.items()}
    if isinstance(value, list):
        return [_expanded(v, f"{pointer}/{i}", context) for i, v in enumerate(value)]
    return value


def _eval(evaluation: Mapping[str, Any], named: Mapping[str, Any], pointer: str, context: Context) -> None:
    if not evaluation.get("prompt") or not evaluation.get("server"):
        context.unsupported(pointer, "an eval needs a server and a prompt")
        return
    scenario: dict[str, Any] = {
        "name": _scenario_name(str(evaluation.get("name", "eval")), pointer, context),
        "server": str(evaluation["server"]),
        "provider": context.provider,
        "model": context.model,
        "prompt": context.text(evaluation["prompt"], f"{pointer}/prompt"),
    }
    rubric = evaluation.get("rubric")
    text = _rubric_text(rubric, f"{pointer}/rubric", named, context) if rubric is not None else ""
    threshold = evaluation.get("threshold", rubric.get("threshold") if isinstance(rubric, Mapping) else None)
    if text:
        _judge(scenario, text, threshold if threshold is not None else 0.7, context)
    for key in evaluation:
        if key not in ("name", "server", "prompt", "rubric", "threshold"):
            context.unsupported(f"{pointer}/{key}", "not supported for evals")
    context.suite["scenarios"].append(scenario)
