"""Scorer code from a plain-English description without a model: a few documented templates.

What the templates understand (anything else is listed in the note as not understood):
- Tools: a tool of the server named in the description, exactly (`get_weather`, also "get weather"), or by the
  distinctive words of its name ("the weather tool" → get_weather). A snake_case name that is not a tool of
  the server is reported; without any known tool the scorer falls back to "some tool was called" (or, for a
  restraint, "no tool was called").
- "tool called" (the default): score 0 when a named tool was not called.
- "tool not called" (restraint): "should not / must not / never / refrain / avoid / do not call", or
  "score 1 when … not called". Score 1 only when none of the named tools was called.
- Argument ranges: "latitude (-90 to 90)", "latitude parameter range (-90 to 90)", "latitude between -90 and
  90", "latitude from 0 to 10": the first call's argument must be a number in the range. Only arguments of
  the named tools' input schemas are checked.
- Required arguments: "required arguments" (the schema's `required` list), "with a city argument",
  "the city parameter is provided": the first call's argument must be present and not empty.
- Nothing about the final answer (what it mentions, says or contains): a sentence asking for that is named in
  the note, and in a comment atop the code, as not expressed, even when it also names a tool.
The generated scorer returns 1 only when every check passes, else 0, and logs the first failing check. This
is the shape of the product's get_weather example.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_GENERIC_WORDS = frozenset({"get", "set", "fetch", "list", "tool", "do", "make", "run", "the", "by", "for", "of"})
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_SNAKE_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_RESTRAINT = re.compile(
    r"\b(should|must|shall)\s*(not|n't)\b|\bnever\b|\brefrain|\bavoid|\b(do|does)\s*(not|n't)\s+call"
    r"|\bwithout\s+calling|\bno\s+tools?\s+(should|must|is|are)\b",
    re.IGNORECASE,
)
_SCORE_ONE_WHEN_NOT_CALLED = re.compile(r"\bscore\s+(1|one)\s+(when|if)\b[^.]*\bnot\s+(called|used|invoked)", re.I)
_SCORE_ZERO_WHEN_NOT_CALLED = re.compile(r"\bscore\s+(0|zero)\s+(when|if)\b[^.]*\bnot\s+(called|used|invoked)", re.I)
_SCORING_STATEMENT = re.compile(r"\bscore\b.*\b(0|1|zero|one)\b|\botherwise\s+(0|zero)\b", re.IGNORECASE)
_CALL_WORDS = re.compile(r"\b(call|calls|called|calling|invoke[sd]?|use[sd]?|execut\w+|run)\b")
_PARTIAL = re.compile(r"\bpartial|\b0\.\d+\b|\bhalf\b", re.IGNORECASE)
_CONNECTOR = r"(?:parameter|param|argument|arg|value|field|is|must|should|be|range|within|in|the)"
_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_RANGE = re.compile(
    rf"(?P<arg>[A-Za-z_][A-Za-z0-9_]*)(?:\s+{_CONNECTOR})*\s*(?:\(|\[|\bbetween\b|\bfrom\b)?\s*"
    rf"(?P<low>{_NUMBER})\s*(?:to|and|-|\u2013|\u2014|\.\.|,)\s*(?P<high>{_NUMBER})",
    re.IGNORECASE,
)
# A criterion on what the agent answered: the templates read tool calls only, so such a sentence is never "understood".
_ANSWER_CHECK = re.compile(
    r"\b(answer|response|reply|replies|final\s+text|final\s+message|mentions?|says?|states?|tells?)\b", re.IGNORECASE
)
_ALL_REQUIRED = re.compile(r"\brequired\s+(arguments|parameters|args|params|fields)\b", re.IGNORECASE)
_PRESENCE = re.compile(
    r"\b(?:with|includes?|including|provides?|passes|passing|has|have|sets?)\s+(?:an?\s+|the\s+)?"
    r"(?P<arg>[A-Za-z_]\w*)\s+(?:argument|parameter|param|arg)\b"
    r"|\b(?P<arg2>[A-Za-z_]\w*)\s+(?:argument|parameter|param|arg)\s+(?:is\s+)?"
    r"(?:present|provided|set|given|included|required)\b",
    re.IGNORECASE,
)


@dataclass
class _Plan:
    tools: list[str] = field(default_factory=list)
    restraint: bool = False
    ranges: list[tuple[str, str, float, float]] = field(default_factory=list)  # tool, argument, low, high
    required: list[tuple[str, str]] = field(default_factory=list)  # tool, argument
    used: list[str] = field(default_factory=list)  # templates, in words
    notes: list[str] = field(default_factory=list)
    not_expressed: list[str] = field(default_factory=list)  # sentences asking about the final answer


def template_code(description: str, tools: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """(JavaScript scorer, note saying which templates were used and what was not understood)."""
    plan = _plan(description, tools)
    code = _code(plan, description)
    note = "Template scorer (no AI model was used): " + "; ".join(plan.used) + "."
    note += " It scores 1 only when every check passes, else 0."
    if plan.not_expressed:
        note += (
            " Not expressed, because templates check only tool calls and their arguments: "
            + " ".join(json.dumps(sentence) for sentence in plan.not_expressed)
            + ". Add it to the code, use a judge scorer, or an expectation on the final answer."
        )
    if plan.notes:
        note += " " + " ".join(plan.notes)
    return code, note


# --- reading the description ---


def _plan(description: str, tools: Sequence[Mapping[str, Any]]) -> _Plan:
    plan = _Plan()
    sentences = [sentence for sentence in _SENTENCE.split(description.strip()) if sentence]
    understood = [False] * len(sentences)
    schemas = {str(tool.get("name")): tool.get("inputSchema") or {} for tool in tools if tool.get("name")}

    plan.tools, matched_by_words = _named_tools(description, list(schemas))
    if matched_by_words:
        plan.notes.append(f"Matched {', '.join(plan.tools)} from words of the description.")
    unknown = sorted({name for name in _SNAKE_NAME.findall(description) if name not in schemas})
    if unknown:
        known = ", ".join(schemas) or "none"
        plan.notes.append(
            f"{', '.join(unknown)} {'is not a tool' if len(unknown) == 1 else 'are not tools'} of this server "
            f"(its tools: {known})."
        )

    for index, sentence in enumerate(sentences):
        lowered = sentence.lower()
        names_a_tool = any(_mentions(lowered, name) for name in plan.tools) or re.search(r"\btools?\b", lowered)
        if names_a_tool and _CALL_WORDS.search(lowered):
            understood[index] = True
        if _SCORE_ONE_WHEN_NOT_CALLED.search(sentence):
            plan.restraint = understood[index] = True
        elif _SCORE_ZERO_WHEN_NOT_CALLED.search(sentence):
            understood[index] = True
        elif _RESTRAINT.search(sentence):
            plan.restraint = understood[index] = True
        if _SCORING_STATEMENT.search(sentence):
            understood[index] = True
        if _PARTIAL.search(sentence):
            plan.notes.append("Partial scores are not supported by the templates: edit the code to add them.")
        for match in _RANGE.finditer(sentence):
            low, high = sorted((float(match["low"]), float(match["high"])))
            owners = _tools_with_argument(plan.tools, schemas, match["arg"])
            for tool in owners:
                plan.ranges.append((tool, _argument_name(schemas[tool], match["arg"]), low, high))
                understood[index] = True
            if not owners:
                plan.notes.append(_not_an_argument(match["arg"], plan.tools, "range"))
        for match in _PRESENCE.finditer(sentence):
            argument = match["arg"] or match["arg2"]
            owners = _tools_with_argument(plan.tools, schemas, argument)
            for tool in owners:
                plan.required.append((tool, _argument_name(schemas[tool], argument)))
                understood[index] = True
            if not owners:
                plan.notes.append(_not_an_argument(argument, plan.tools, "presence"))
        if _ALL_REQUIRED.search(sentence):
            for tool in plan.tools:
                for argument in (schemas[tool] or {}).get("required") or []:
                    plan.required.append((tool, str(argument)))
            understood[index] = True

    _describe(plan)
    plan.not_expressed = [sentence for sentence in sentences if _ANSWER_CHECK.search(sentence)]
    missed = [
        sentence
        for sentence, ok in zip(sentences, understood, strict=True)
        if not ok and sentence not in plan.not_expressed
    ]
    if missed:
        plan.notes.append("Not understood: " + " ".join(json.dumps(sentence) for sentence in missed))
    return plan


def _named_tools(description: str, names: list[str]) -> tuple[list[str], bool]:
    """Tools named exactly (or with spaces for _ and -), else tools whose distinctive words all appear."""
    text = " " + " ".join(_words(description)) + " "
    exact = [name for name in names if f" {' '.join(_words(name))} " in text]
    if exact:
        return exact, False
    present = set(text.split())
    scored = []
    for name in names:
        distinctive = [word for word in _words(name) if word not in _GENERIC_WORDS and len(word) > 2]
        if distinctive and all(_stem(word) in {_stem(word) for word in present} for word in distinctive):
            scored.append((len(distinctive), name))
    if not scored:
        return [], False
    best = max(count for count, _ in scored)
    return [name for count, name in scored if count == best], True


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [word for word in re.split(r"[^a-z0-9]+", spaced.lower()) if word]


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _mentions(text: str, name: str) -> bool:
    return " ".join(_words(name)) in " ".join(_words(text)) or any(
        word in text for word in _words(name) if word not in _GENERIC_WORDS and len(word) > 2
    )


def _not_an_argument(argument: str, tools: list[str], check: str) -> str:
    if not tools:
        return f"The {check} check of {argument!r} was skipped: no tool of this server is named."
    return f"{argument!r} is not an argument of {' or '.join(tools)}: its {check} check was skipped."


def _tools_with_argument(tools: list[str], schemas: Mapping[str, Any], argument: str) -> list[str]:
    """The named tools whose input schema has this argument (any tool, when no schema lists properties)."""
    found = [tool for tool in tools if _argument_name(schemas[tool], argument) in _properties(schemas[tool])]
    if found:
        return found
    return [tool for tool in tools if not _properties(schemas[tool])]


def _properties(schema: Any) -> dict[str, Any]:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return dict(properties) if isinstance(properties, Mapping) else {}


def _argument_name(schema: Any, word: str) -> str:
    return next((name for name in _properties(schema) if name.lower() == word.lower()), word)


def _describe(plan: _Plan) -> None:
    plan.ranges = list(dict.fromkeys(plan.ranges))
    plan.required = [item for item in dict.fromkeys(plan.required) if item[:2] not in {r[:2] for r in plan.ranges}]
    if plan.restraint:
        plan.used.append(f"tool not called ({', '.join(plan.tools)})" if plan.tools else "no tool called")
        if plan.ranges or plan.required:
            plan.notes.append("Argument checks are ignored for a tool that must not be called.")
            plan.ranges, plan.required = [], []
        return
    if not plan.tools:
        plan.used.append("some tool called (fallback: no tool of this server is named in the description)")
        return
    plan.used.append(f"tool called ({', '.join(plan.tools)})")
    if plan.ranges:
        ranges = ", ".join(f"{argument} {_number(low)}..{_number(high)}" for _, argument, low, high in plan.ranges)
        plan.used.append(f"argument ranges ({ranges})")
    if plan.required:
        plan.used.append(f"required arguments ({', '.join(argument for _, argument in plan.required)})")


# --- writing the code ---


def _code(plan: _Plan, description: str) -> str:
    summary = " ".join(description.split())
    summary = summary if len(summary) <= 160 else summary[:159] + "…"
    lines = [
        f"// Template scorer for: {summary}",
        *(
            ["// Not checked here: what the final answer says (templates read tool calls only)."]
            * bool(plan.not_expressed)
        ),
        "async ({ input, expected, output }) => {",
        "  const allToolCalls = (output && output.allToolCalls) || [];",
        "",
    ]
    if plan.restraint and plan.tools:
        lines += [
            f"  const forbidden = {json.dumps(plan.tools)};",
            "  const called = allToolCalls.filter((tc) => forbidden.includes(tc.toolName));",
            "  if (called.length > 0) {",
            '    console.log("Called although it should not:", called.map((tc) => tc.toolName).join(", "));',
            "    return 0;",
            "  }",
            "  return 1;",
        ]
    elif plan.restraint:
        lines += [
            "  if (allToolCalls.length > 0) {",
            '    console.log("Tools were called:", allToolCalls.map((tc) => tc.toolName).join(", "));',
            "    return 0;",
            "  }",
            "  return 1;",
        ]
    elif not plan.tools:
        lines += [
            "  if (allToolCalls.length === 0) {",
            '    console.log("No tool was called");',
            "    return 0;",
            "  }",
            "  return 1;",
        ]
    else:
        names = _variables(plan.tools)
        for tool in plan.tools:
            lines += _tool_checks(tool, names[tool], plan)
        lines.append("  return 1;")
    return "\n".join([*lines, "};", ""])


def _tool_checks(tool: str, name: str, plan: _Plan) -> list[str]:
    lines = [
        f"  // {tool} must be called.",
        f"  const {name}Calls = allToolCalls.filter((tc) => tc.toolName === {json.dumps(tool)});",
        f"  if ({name}Calls.length === 0) {{",
        f"    console.log({json.dumps(f'{tool} was not called')});",
        "    return 0;",
        "  }",
    ]
    ranges = [(argument, low, high) for owner, argument, low, high in plan.ranges if owner == tool]
    required = [argument for owner, argument in plan.required if owner == tool]
    if not ranges and not required:
        return [*lines, ""]
    args = f"{name}Args"
    lines += [
        "",
        f"  // Check the arguments of the first {tool} call.",
        f"  const {args} = {name}Calls[0].args || {{}};",
    ]
    for argument, low, high in ranges:
        value = _access(args, argument)
        low_text, high_text = _number(low), _number(high)
        message = json.dumps(f"{tool}: {argument} is not a number from {low_text} to {high_text}:")
        lines += [
            f'  if (!(typeof {value} === "number" && {value} >= {low_text} && {value} <= {high_text})) {{',
            f"    console.log({message}, {value});",
            "    return 0;",
            "  }",
        ]
    for argument in required:
        value = _access(args, argument)
        lines += [
            f'  if ({value} === undefined || {value} === null || {value} === "") {{',
            f"    console.log({json.dumps(f'{tool}: the {argument} argument is missing')});",
            "    return 0;",
            "  }",
        ]
    return [*lines, ""]


def _variables(tools: list[str]) -> dict[str, str]:
    """A distinct JavaScript name per tool (`get_weather` → getWeather), never clashing with allToolCalls."""
    names: dict[str, str] = {}
    taken = {"allTool"}
    for tool in tools:
        words = _words(tool) or ["tool"]
        base = words[0] + "".join(word.capitalize() for word in words[1:])
        base = base if base[0].isalpha() else "tool" + base.capitalize()
        name, number = base, 2
        while name in taken:
            name, number = f"{base}{number}", number + 1
        taken.add(name)
        names[tool] = name
    return names


def _access(variable: str, argument: str) -> str:
    return f"{variable}.{argument}" if _IDENTIFIER.match(argument) else f"{variable}[{json.dumps(argument)}]"


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)
