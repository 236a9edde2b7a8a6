"""What converting one mcptest suite carries along: its variables, the chosen model, the notes and the suite.

A `from_env` variable is never read at import: the import runs in EvalHub's own process, whose environment holds
its settings (SECRET_KEY, DATABASE_URL…), and whatever it read would be stored in clear and sent to the file's
hosts. It follows the rule of every secret instead: as a whole env or header value it becomes the reference
`${NAME}`, which applying checks against the allowlist and which is resolved where it is used. Elsewhere (a URL,
a prompt, a command) EvalHub has no references, so its `default` is used; without one the import is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evalhub.suites.mcptest.expect import Note

_VARIABLE = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_.]*)\}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Variable:
    value: str | None  # what it stands for in text: `value`, or from_env's `default`; None when it has neither
    env: str = ""  # from_env: the environment variable it names, only ever as a reference


@dataclass
class Context:
    variables: dict[str, Variable]
    provider: str
    model: str
    notes: list[Note]
    suite: dict[str, list[dict[str, Any]]]
    problems: list[tuple[str, str]] = field(default_factory=list)  # (pointer, message): the import is refused

    def text(self, value: Any, pointer: str) -> str:
        """A string field with variables interpolated; other `${…}` reported and left as written."""
        text = self.expand(value, pointer)
        for name in _VARIABLE.findall(text):
            if name:
                self.notes.append(Note(pointer, "approximated", f"${{{name}}} is no variable here; left as text"))
        return text

    def secret(self, value: Any, pointer: str) -> str:
        """An env or header value: a from_env variable written alone is kept as the secret reference `${NAME}`."""
        found = _VARIABLE.fullmatch(str(value))
        variable = self.variables.get(found.group(1) or "") if found else None
        if variable is not None and variable.env:
            return f"${{{variable.env}}}"
        return self.expand(value, pointer)

    def expand(self, value: Any, pointer: str) -> str:
        def replace(match: re.Match[str]) -> str:
            if match.group(0) == "$$":
                return "$"
            variable = self.variables.get(match.group(1))
            if variable is None:
                return match.group(0)
            if variable.value is None:
                self.problems.append((pointer, _refusal(match.group(1), variable)))
                return match.group(0)
            if variable.env:
                reason = f"${{{match.group(1)}}} is its default: environment variables are not read at import"
                self.notes.append(Note(pointer, "approximated", reason))
            return variable.value

        return _VARIABLE.sub(replace, str(value))

    def unsupported(self, pointer: str, reason: str) -> None:
        self.notes.append(Note(pointer, "unsupported", reason))


def _refusal(name: str, variable: Variable) -> str:
    return (
        f"${{{name}}} reads the environment variable {variable.env} (from_env), which EvalHub reads only as a whole "
        "server env or header value (a secret reference, resolved where it is used): give the variable a default, "
        "or write the value here"
    )


def env_name(value: Any) -> str:
    """The name `from_env` gives, or "" when it is not a variable name."""
    return str(value) if _ENV_NAME.fullmatch(str(value)) else ""
