"""How a stored secret appears in a suite file: always as a `${VAR}` reference, never as its value.

A secret stored as a reference keeps it. A secret stored by value is written as a reference to a variable named
after its owner and key (`WEATHER_X_API_KEY`): the user must set that variable where the file is applied. On the
install it came from, that same reference means "keep the stored value", so applying an export changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from evalhub import vault


def variable_name(*parts: str) -> str:
    """An environment variable name for a secret stored by value: `weather` + `X-Api-Key` → WEATHER_X_API_KEY."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", "_".join(parts)).strip("_").upper() or "SECRET"
    if name[0].isdigit() or name in vault.PROTECTED_ENV_NAMES or name.startswith(vault.PROTECTED_ENV_PREFIXES):
        name = f"SUITE_{name}"  # never one of EvalHub's own settings, which a reference may not read
    return name


def as_reference(stored: str, *parts: str) -> str:
    return stored if vault.env_reference(stored) else f"${{{variable_name(*parts)}}}"


def to_store(written: str, stored: str | None, *parts: str) -> str:
    """What to store for a secret the file writes as `written`: the stored value when the file names it."""
    if stored is not None and as_reference(stored, *parts) == written:
        return stored
    return written


def split(values: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """File values → (plain values, secrets): a value written `${VAR}` is a secret."""
    plain = {key: value for key, value in values.items() if vault.env_reference(value) is None}
    secret = {key: value for key, value in values.items() if key not in plain}
    return plain, secret


REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
