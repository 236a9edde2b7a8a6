"""What converting one mcptest suite carries along: its variables, the chosen model, the notes and the suite; and
mcptest's interpolation, exactly as its reference writes it:

    ${name}           a variable of `variables:` (else the environment variable NAME)
    ${VAR:?}          the environment variable VAR; unset is an error
    ${VAR:-default}   the environment variable VAR, or `default` when it is unset
    $VAR              the environment variable VAR
    $$                a literal $

Nothing is read from the environment at import: the import runs in EvalHub's own process, whose environment holds
its settings (SECRET_KEY, DATABASE_URL…), and the web server's environment is not where runs happen. A scenario's
texts (prompt, system prompt, turns, tool arguments, expectations) read it when the run starts, in the worker:
each such reference becomes a scenario variable `${key}` with its environment variable and default
(runs/variables.py resolves them; a missing one fails the run with an error naming it). Elsewhere (a server's URL or
command, a judge's rubric) EvalHub has no run-time text, so the default is used and reported; without one the
import is refused. A whole env or header value stays a secret reference `${NAME}`, resolved where it is used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evalhub.suites.mcptest.expect import Note

_TOKEN = re.compile(r"\$\$|\$\{([^{}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_INNER = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)(?::([?-])(.*))?", re.DOTALL)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Variable:
    value: str | None  # what it stands for in text: `value`, or from_env's `default`; None when it has neither
    env: str = ""  # from_env: the environment variable it names, only ever read when a run starts


@dataclass(frozen=True)
class Reference:
    """One `${…}`/`$VAR` as written: the text it stands for now, or the environment variable a run reads."""

    key: str  # the scenario variable's name: the mcptest variable's, or the environment variable's
    env: str  # "" when it needs no environment (a `value` variable)
    default: str | None  # the text when the environment variable is unset; None: unset is an error
    value: str | None = None  # a `value` variable's text


@dataclass
class Context:
    variables: dict[str, Variable]
    provider: str
    model: str
    notes: list[Note]
    suite: dict[str, list[dict[str, Any]]]
    problems: list[tuple[str, str]] = field(default_factory=list)  # (pointer, message): the import is refused
    # The current scenario's run-time variables: key → {"env": NAME, "default": text}.
    runtime: dict[str, dict[str, str]] = field(default_factory=dict)
    items: list[str] = field(default_factory=list)  # the pointers of everything the report counts

    def reference(self, inner: str | None, bare: str | None) -> Reference | None:
        """What one reference means; None when it is none mcptest knows (`${a.b}`): left as written."""
        if bare:
            return Reference(bare, bare, None)
        found = _INNER.fullmatch(inner or "")
        if not found:
            return None
        name, operator, rest = found.groups()
        if operator is None and (variable := self.variables.get(name)) is not None:
            if variable.env:
                return Reference(name, variable.env, variable.value)
            return Reference(name, "", None, variable.value)
        if not _ENV_NAME.fullmatch(name):
            return None
        return Reference(name, name, rest if operator == "-" else None)

    def text(self, value: Any, pointer: str) -> str:
        """A scenario text: variables interpolated; environment reads become run-time variables `${key}`."""

        def replace(match: re.Match[str]) -> str:
            if match.group(0) == "$$":
                # A literal $: written `$$` where a run's interpolation would otherwise read `${…}`.
                return "$$" if match.string.startswith("{", match.end()) else "$"
            ref = self.reference(match.group(1), match.group(2))
            if ref is None:
                self.notes.append(
                    Note(pointer, "approximated", f"{match.group(0)} is no mcptest variable; left as text")
                )
                return match.group(0).replace("${", "$${")
            if not ref.env:
                return str(ref.value)
            return "${" + self._runtime(ref) + "}"

        return _TOKEN.sub(replace, str(value))

    def _runtime(self, ref: Reference) -> str:
        spec = {"env": ref.env} | ({"default": ref.default} if ref.default is not None else {})
        key, n = ref.key, 2
        while self.runtime.get(key, spec) != spec:
            key, n = f"{ref.key}_{n}", n + 1
        self.runtime[key] = spec
        return key

    def scenario_variables(self, scenario: dict[str, Any]) -> None:
        """Attach the run-time variables the scenario's texts use (and start the next scenario afresh); a scenario
        without any takes its `$$` back to `$`, since nothing interpolates it."""
        if self.runtime:
            scenario["variables"] = dict(sorted(self.runtime.items()))
        else:
            for key in ("prompt", "system_prompt", "tool_call", "conversation", "expectations"):
                if key in scenario:
                    scenario[key] = _unescaped(scenario[key])
        self.runtime = {}

    def secret(self, value: Any, pointer: str) -> str:
        """An env or header value: an environment variable written alone is kept as the secret reference `${NAME}`."""
        found = _TOKEN.fullmatch(str(value))
        ref = self.reference(found.group(1), found.group(2)) if found and found.group(0) != "$$" else None
        if ref is not None and ref.env and (ref.default is None or ref.key in self.variables):
            return f"${{{ref.env}}}"
        return self.expand(value, pointer)

    def expand(self, value: Any, pointer: str) -> str:
        """A text EvalHub never interpolates at run time: an environment variable's default stands in for it."""

        def replace(match: re.Match[str]) -> str:
            if match.group(0) == "$$":
                return "$"
            ref = self.reference(match.group(1), match.group(2))
            if ref is None:
                self.notes.append(
                    Note(pointer, "approximated", f"{match.group(0)} is no mcptest variable; left as text")
                )
                return match.group(0)
            if not ref.env:
                return str(ref.value)
            if ref.default is None:
                self.problems.append((pointer, _refusal(match.group(0), ref.env)))
                return match.group(0)
            reason = f"{match.group(0)} is its default {ref.default!r}: EvalHub reads no environment variable here"
            self.notes.append(Note(pointer, "approximated", reason))
            return ref.default

        return _TOKEN.sub(replace, str(value))

    def scenario_name(self, name: str, pointer: str) -> str:
        taken = {entry["name"] for entry in self.suite["scenarios"]}
        unique, n = name, 2
        while unique in taken:
            unique, n = f"{name} ({n})", n + 1
        if unique != name:
            self.notes.append(Note(f"{pointer}/name", "approximated", f"renamed to {unique!r}: the name is taken"))
        return unique

    def tags(self, values: Any, pointer: str) -> list[str]:
        tags = []
        for index, tag in enumerate(values or []):
            slug = re.sub(r"[^-a-zA-Z0-9_]+", "-", tag).strip("-")[:50]
            if slug != tag:
                self.notes.append(Note(f"{pointer}/tags/{index}", "approximated", f"tag written as {slug!r}"))
            if slug and slug not in tags:
                tags.append(slug)
        return tags

    def texts(self, value: Any, pointer: str) -> Any:
        """Every string in `value` (an expect block, tool arguments) interpolated as a scenario text."""
        if isinstance(value, str):
            return self.text(value, pointer)
        if isinstance(value, Mapping):
            return {k: self.texts(v, f"{pointer}/{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [self.texts(v, f"{pointer}/{i}") for i, v in enumerate(value)]
        return value

    def unsupported(self, pointer: str, reason: str) -> None:
        self.notes.append(Note(pointer, "unsupported", reason))


def _unescaped(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("$${", "${")
    if isinstance(value, dict):
        return {key: _unescaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unescaped(item) for item in value]
    return value


def _refusal(written: str, env: str) -> str:
    return (
        f"{written} reads the environment variable {env}, which EvalHub reads here only as a whole server env or "
        "header value (a secret reference, resolved where it is used): give it a default, or write the value here"
    )


def env_name(value: Any) -> str:
    """The name `from_env` gives, or "" when it is not a variable name."""
    return str(value) if _ENV_NAME.fullmatch(str(value)) else ""
