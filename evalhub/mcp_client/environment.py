"""The environment a stdio server process starts with.

A stdio server is third-party code. It must not inherit the dashboard's own environment, which holds
SECRET_KEY, DATABASE_URL, provider API keys and broker credentials. It gets only the variables below, copied
from our environment when set, plus whatever the user configured for that server. Nothing else, so names like
SECRET_KEY, DATABASE_URL, OPENAI_API_KEY, AWS_* or HTTP(S)_PROXY (which may embed credentials) never leak;
a server that needs one must have it configured explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ENV_ALLOWLIST: tuple[str, ...] = (
    # Finding executables (npx, uvx, node, python) and their per-user caches.
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    # Text encoding and time zone, so servers decode and format like a login shell would.
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    # Where to write temporary files.
    "TMPDIR",
)


def child_environment(configured: Mapping[str, str], parent: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allowlisted part of `parent` (default: our environment) overlaid with the user's `configured` vars."""
    source = os.environ if parent is None else parent
    env: dict[str, str] = {}
    for key in ENV_ALLOWLIST:
        value = source.get(key)
        # Exported bash functions look like "() { ...": never forward them.
        if value is not None and not value.startswith("()"):
            env[key] = value
    env.update(configured)
    return env
