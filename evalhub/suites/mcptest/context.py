"""What converting one mcptest suite carries along: its variables, the chosen model, the notes and the suite."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from evalhub.suites.mcptest.expect import Note

_VARIABLE = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_.]*)\}")


@dataclass
class Context:
    variables: dict[str, str]
    provider: str
    model: str
    notes: list[Note]
    suite: dict[str, list[dict[str, Any]]]

    def text(self, value: Any, pointer: str) -> str:
        """A string field with variables interpolated; other `${…}` reported and left as written."""
        text = self.expand(value)
        for name in _VARIABLE.findall(text):
            if name:
                self.notes.append(Note(pointer, "approximated", f"${{{name}}} is no variable here; left as text"))
        return text

    def expand(self, value: Any) -> str:
        def replace(match: re.Match[str]) -> str:
            if match.group(0) == "$$":
                return "$"
            return self.variables.get(match.group(1), match.group(0))

        return _VARIABLE.sub(replace, str(value))

    def unsupported(self, pointer: str, reason: str) -> None:
        self.notes.append(Note(pointer, "unsupported", reason))
