"""Static checks on a tool list: what a model will struggle with before any run happens.

Heuristics, documented where they are guesses:
- "Short description": fewer than MIN_DESCRIPTION_CHARS characters or MIN_DESCRIPTION_WORDS words.
- "Unclear name": shorter than 3 characters, one of GENERIC_NAMES, or not consistently snake_case,
  kebab-case or camelCase (dotted or slashed namespaces are checked part by part).
- "Returns JSON without outputSchema": the description mentions JSON, or says the tool returns an
  object/dict/record/structured data (JSON_HINT below), yet no outputSchema is declared, so clients cannot
  validate or parse the result reliably.
- Token count: characters of the tool list as JSON divided by 4, the usual rule of thumb for English text
  and JSON with GPT/Claude-style tokenizers; it is an estimate, not a tokenizer run.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

Severity = Literal["error", "warning", "info"]

MIN_DESCRIPTION_CHARS = 20
MIN_DESCRIPTION_WORDS = 4
CHARS_PER_TOKEN = 4
LARGE_METADATA_TOKENS = 10_000
GENERIC_NAMES = frozenset(
    {"tool", "tools", "do", "run", "exec", "execute", "call", "action", "function", "func", "handle", "handler"}
    | {"process", "main", "test", "foo", "bar", "misc", "helper", "util", "utils", "api", "get", "data"}
)
# MCP tool names: 1-128 characters from this set (spec 2025-11-25).
VALID_NAME = re.compile(r"^[A-Za-z0-9_.\-/]{1,128}$")
NAME_STYLES = (
    re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"),  # snake_case
    re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$"),  # kebab-case
    re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$"),  # camelCase
    re.compile(r"^[A-Z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$"),  # PascalCase
    re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$"),  # SCREAMING_SNAKE
)
JSON_HINT = re.compile(
    r"\bjson\b|\breturns?\s+(?:an?\s+|the\s+)?(?:\w+\s+)?(?:object|dict|dictionary|mapping|record)s?\b"
    r"|\bstructured\s+(?:data|output|result|response)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Finding:
    severity: Severity
    code: str
    message: str
    tool: str | None = None


@dataclass
class QualityReport:
    tool_count: int
    metadata_chars: int
    approx_tokens: int
    findings: list[Finding] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counter: Counter[str] = Counter(f.severity for f in self.findings)
        return {severity: counter.get(severity, 0) for severity in ("error", "warning", "info")}

    def for_tool(self, name: str) -> list[Finding]:
        return [f for f in self.findings if f.tool == name]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "counts": self.counts()}


def quality_report(
    tools: Sequence[Mapping[str, Any]], invalid_tools: Sequence[Mapping[str, Any]] = (), *, evals_capped: str = ""
) -> QualityReport:
    """Findings on `tools`, plus one error per tool the server listed that is not valid MCP (`invalid_tools`,
    as `Inspection.invalid_tools` records them): those are left out and never offered to a model. `evals_capped`
    says what an inspection left out of the server's shipped evals (server_evals.cap_message), a warning too."""
    metadata_chars = len(json.dumps(list(tools), ensure_ascii=False, separators=(",", ":")))
    report = QualityReport(
        tool_count=len(tools),
        metadata_chars=metadata_chars,
        approx_tokens=math.ceil(metadata_chars / CHARS_PER_TOKEN),
    )
    findings = report.findings
    names = Counter(str(tool.get("name", "")) for tool in tools)
    for name, count in sorted(names.items()):
        if count > 1:
            findings.append(Finding("error", "duplicate_name", f"{count} tools are named {name!r}.", name))
    for tool in tools:
        findings.extend(_check_tool(tool))
    for invalid in invalid_tools:
        label = invalid["name"] if invalid.get("name") is not None else f"#{invalid['position']}"
        findings.append(
            Finding(
                "error",
                "invalid_tool",
                f"Not valid MCP, so it was left out and models are not offered it ({invalid['reason']}); fix the "
                "tool's definition on the server.",
                label,
            )
        )
    if report.approx_tokens > LARGE_METADATA_TOKENS:
        findings.append(
            Finding(
                "warning",
                "large_metadata",
                f"The tool list is about {report.approx_tokens:,} tokens, sent with every model request; "
                "consider fewer or shorter tools.",
            )
        )
    if evals_capped:
        findings.append(Finding("warning", "shipped_evals_capped", evals_capped, "evals/list"))
    order = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: (order[f.severity], f.tool or "", f.code))
    return report


def _check_tool(tool: Mapping[str, Any]) -> list[Finding]:
    name = str(tool.get("name", ""))
    found = _check_name(name)
    description = (tool.get("description") or "").strip()
    if not description:
        found.append(Finding("error", "no_description", "No description: models pick tools by description.", name))
    elif len(description) < MIN_DESCRIPTION_CHARS or len(description.split()) < MIN_DESCRIPTION_WORDS:
        found.append(
            Finding(
                "warning",
                "short_description",
                f"Very short description ({description!r}); say what the "
                "tool does, what it returns and when to use it.",
                name,
            )
        )
    found.extend(_check_schema(name, "inputSchema", tool.get("inputSchema")))
    if tool.get("outputSchema") is not None:
        found.extend(_check_schema(name, "outputSchema", tool.get("outputSchema")))
    elif description and JSON_HINT.search(description):
        found.append(
            Finding(
                "warning",
                "json_without_output_schema",
                "The description says it returns JSON/structured data but the tool declares no outputSchema.",
                name,
            )
        )
    found.extend(_check_parameters(name, tool.get("inputSchema")))
    return found


def _check_name(name: str) -> list[Finding]:
    if not VALID_NAME.match(name):
        return [
            Finding(
                "error",
                "invalid_name",
                f"The name {name!r} is not a valid MCP tool name (1-128 letters, digits, '_', '-', '.', '/').",
                name,
            )
        ]
    parts = [part for part in re.split(r"[./]", name) if part]
    last = parts[-1] if parts else name
    if len(last) < 3 or last.lower() in GENERIC_NAMES:
        return [Finding("warning", "unclear_name", f"The name {name!r} says little about what the tool does.", name)]
    if not all(any(style.match(part) for style in NAME_STYLES) for part in parts):
        return [
            Finding(
                "warning",
                "unclear_name",
                f"The name {name!r} mixes naming styles; use snake_case, kebab-case or camelCase.",
                name,
            )
        ]
    return []


def _check_schema(name: str, which: str, schema: Any) -> list[Finding]:
    if not isinstance(schema, dict):
        return [Finding("error", "invalid_schema", f"{which} is not a JSON object.", name)]
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        path = "/".join(str(part) for part in exc.path)
        where = f" at {path}" if path else ""
        return [Finding("error", "invalid_schema", f"{which} is not valid JSON Schema{where}: {exc.message}", name)]
    if schema.get("type") != "object":
        return [Finding("error", "invalid_schema", f'{which} must have "type": "object" in MCP.', name)]
    return []


def _check_parameters(name: str, schema: Any) -> list[Finding]:
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return []
    bare = sorted(
        key for key, prop in schema["properties"].items() if isinstance(prop, dict) and not prop.get("description")
    )
    if not bare:
        return []
    listed = ", ".join(bare)
    return [Finding("info", "undocumented_parameters", f"Parameters without a description: {listed}.", name)]
