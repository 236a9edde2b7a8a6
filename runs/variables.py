"""A scenario's variables resolved when its run starts, in the worker: `${name}` in its texts reads an environment
variable of the worker's process (mcptest's `from_env`, `${VAR:?}`, `${VAR:-default}` and `$VAR`, kept by an
import as `{name: {"env": VAR, "default": text}}`).

Read when the run starts, not when the suite was imported: the web server's environment is not the worker's, and a
variable set for tonight's CI run must be the one used. The same rule as a secret reference holds
(evalhub.vault.reference_refusal): only a variable an operator allowlisted, never one of EvalHub's own settings.
A variable that is unset and has no default, or is refused, fails the run before it connects: an error (step
"connect", kind "missing_variable") naming the variable, which the verdict rule counts as the harness's: verdict
inconclusive, cause harness (runs/verdict/errors.py), so `evalhub run` exits 3, not 1.

`$${` is a literal `${` (how an import writes mcptest's `$$` before `{`). The resolved values are kept on the run
(`settings["variable_values"]`): its expectations are interpolated with them whenever the run is scored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from evalhub.vault import reference_refusal

# The texts of a run's settings that variables appear in.
TEXT_SETTINGS = ("prompt", "system_prompt", "tool_call", "primitive", "conversation")


class MissingVariable(Exception):
    """A variable could not be resolved; the message names it and says what to do."""


def resolve(variables: Mapping[str, Mapping[str, str]], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    values = {}
    for name, spec in variables.items():
        env = spec["env"]
        if (refusal := reference_refusal(env)) is not None:
            raise MissingVariable(f"The variable ${{{name}}} cannot be read: {refusal}")
        if env in environ:
            values[name] = environ[env]
        elif "default" in spec:
            values[name] = spec["default"]
        else:
            raise MissingVariable(
                f"The variable ${{{name}}} needs the environment variable {env}, which is not set in the worker "
                "(and it has no default): set it where the worker runs."
            )
    return values


def interpolate(value: Any, values: Mapping[str, str]) -> Any:
    """`value` (text, or JSON holding text) with `${name}` replaced for each resolved name and `$${` made `${`."""
    if not values:
        return value
    pattern = re.compile(r"\$\$\{|\$\{(" + "|".join(re.escape(name) for name in values) + r")\}")

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return pattern.sub(lambda m: values[m.group(1)] if m.group(1) else "${", item)
        if isinstance(item, dict):
            return {key: walk(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner) for inner in item]
        return item

    return walk(value)


def interpolate_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A run's settings with its variables resolved (raises MissingVariable); unchanged when it has none."""
    variables = settings.get("variables") or {}
    if not variables:
        return settings
    values = resolve(variables)
    texts = {key: interpolate(settings[key], values) for key in TEXT_SETTINGS if key in settings}
    return {**settings, **texts, "variable_values": values}
