"""Pieces of the server form: the lines typed into it (`NAME=value` environment variables, `Name: value`
headers), widgets that never render a secret, and the fieldsets it is laid out in.

Line problems name the line and never quote a value: the value may be a secret.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from django import forms

from evalhub import vault
from evalhub.mcp_client.config import HEADER_NAME, HEADER_NAME_RULE

MASK = "••••"
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Set by the MCP client from the request itself; a user's value would break the transport.
RESERVED_HEADERS = frozenset(
    {"host", "content-length", "content-type", "transfer-encoding", "connection", "accept"}
    | {"mcp-session-id", "mcp-protocol-version", "last-event-id"}
)
# Parts of a variable name that say "this is a credential": GITHUB_TOKEN, DB_PASSWORD, OPENAI_API_KEY.
SECRET_ENV_WORDS = frozenset({"TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "CREDENTIAL", "CREDENTIALS"})
SECRET_ENV_PAIRS = ("API_KEY", "ACCESS_KEY", "PRIVATE_KEY", "AUTH_KEY", "CLIENT_SECRET")


def looks_secret_env(name: str) -> bool:
    upper = name.upper()
    return bool(SECRET_ENV_WORDS & set(upper.split("_"))) or any(pair in upper for pair in SECRET_ENV_PAIRS)


def parse_lines(text: str, *, separator: str, kind: str, secret: bool) -> tuple[dict[str, str], list[str]]:
    """`NAME=value` (env) or `Name: value` (headers) lines; problems name the line and never quote a value."""
    values: dict[str, str] = {}
    seen: dict[str, int] = {}
    problems: list[str] = []
    example = "NAME=value" if separator == "=" else "Name: value"
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, value = line.partition(separator)
        name, value = name.strip(), value.strip()
        pattern = ENV_NAME if kind == "env" else HEADER_NAME
        key = name if kind == "env" else name.lower()
        if not sep or not name:
            problems.append(f"Line {number} has no “{separator}”: write one {example} per line.")
        elif not pattern.match(name):
            allowed = "letters, digits and _, not starting with a digit" if kind == "env" else HEADER_NAME_RULE
            problems.append(f"Line {number}: “{name}” is not a valid {_noun(kind)} name ({allowed}).")
        elif kind == "header" and key in RESERVED_HEADERS:
            problems.append(f"Line {number}: {name} is set by EvalHub itself; remove this line.")
        elif key in seen:
            problems.append(f"Line {number}: {name} is already given on line {seen[key]}; keep one.")
        elif secret and not value:
            problems.append(f"Line {number}: {name} has no value; type it (secret values are never shown again).")
        elif secret and value.startswith("${") and vault.env_reference(value) is None:
            problems.append(f"Line {number}: {name}: an environment variable reference looks like ${{MY_TOKEN}}.")
        elif kind == "header" and not value:
            problems.append(f"Line {number}: {name} has no value.")
        else:
            seen[key] = number
            values[name] = value
    return values, problems


def _noun(kind: str) -> str:
    return "variable" if kind == "env" else "header"


class SecretLinesField(forms.CharField):
    """Secret `NAME=value` / `Name: value` lines. Re-rendered after an error with the names only."""

    def __init__(self, *, separator: str, **kwargs: Any) -> None:
        self.separator = separator
        super().__init__(**kwargs)

    def bound_data(self, data: Any, initial: Any) -> Any:
        lines = []
        for line in str(data or "").splitlines():
            name, sep, value = line.partition(self.separator)
            if sep and vault.env_reference(value.strip()):
                lines.append(line)  # a reference names a variable; it is not the secret
            elif sep:
                lines.append(f"{name.strip()}{self.separator}{'' if self.separator == '=' else ' '}")
            # A line without a separator may be a pasted secret on its own: drop it.
        return "\n".join(lines)


def textarea(placeholder: str, rows: int = 3) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": rows, "class": "mono", "placeholder": placeholder, "spellcheck": "false"})


def secret_input(**attrs: str) -> forms.PasswordInput:
    return forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password", **attrs})


def add_secret_rows(fields: dict[str, forms.Field], stored: dict[str, Any]) -> dict[str, list[tuple[str, str, str]]]:
    """A replace field and a remove box for each stored secret variable and header, added to `fields`; returns
    {kind: [(secret name, value field, remove field)]}. Field names are hashes: a secret's name may be anything."""
    rows: dict[str, list[tuple[str, str, str]]] = {"env": [], "headers": []}
    for kind, noun in (("env", "variable"), ("headers", "header")):
        for secret_name in stored[kind]:
            key = f"secret_{kind}_{hashlib.sha256(secret_name.encode()).hexdigest()[:10]}"
            fields[key] = forms.CharField(
                label=f"New value for {secret_name}",
                required=False,
                widget=secret_input(
                    placeholder=f"{MASK} set — type to replace",
                    spellcheck="false",
                    **{"aria-label": f"New value for {secret_name}"},
                ),
            )
            fields[f"{key}_clear"] = forms.BooleanField(
                label=f"Remove {noun} {secret_name}",
                required=False,
                widget=forms.CheckboxInput(attrs={"aria-label": f"Remove {noun} {secret_name}"}),
            )
            rows[kind].append((secret_name, key, f"{key}_clear"))
    return rows


@dataclass
class SecretRow:
    """One stored secret on the form: its label, a field to replace it and a box to remove it."""

    label: str
    value: forms.BoundField
    clear: forms.BoundField


@dataclass
class Fieldset:
    legend: str
    transports: str  # space-separated transports this fieldset is for; "" for all
    visible_fields: list[forms.BoundField]
    secret_rows: list[SecretRow] = field(default_factory=list)
    non_field_errors: tuple[()] = ()  # the form's own are shown once, above every fieldset


def url_shape_problem(url: str) -> str | None:
    """What is wrong with a server URL's form (not its address), or None."""
    if (bad := next((ch for ch in url if ch.isspace() or not ch.isprintable()), None)) is not None:
        # urlsplit silently drops tabs and line breaks, so such a URL would otherwise pass and be stored.
        return (
            f"The URL must be one line without spaces or control characters (it contains {bad!r} at "
            f"character {url.index(bad) + 1}); remove it, or percent-encode a space as %20."
        )
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "Start with http:// or https:// and a host, e.g. https://example.com/mcp."
    if parts.username or parts.password:
        return "Leave credentials out of the URL: use Bearer token or Secret headers."
    return None
