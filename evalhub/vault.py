"""Secrets at rest: tokens, API keys, secret headers and environment variables.

A secret is stored either encrypted (Fernet, keyed from EVALHUB_SECRETS_KEY or else derived from SECRET_KEY), or as a
reference `${NAME}` to an environment variable of the process that uses it, which keeps the value out of the
database entirely. Both are sealed the same way; `reveal` returns the usable value.

A reference sends a variable of this machine's environment to whatever server or provider the secret is for, so
it may name only a variable an operator listed in EVALHUB_SECRET_ENV_ALLOWLIST, and never one of EvalHub's own
settings (SECRET_KEY, DATABASE_URL, EVALHUB_*…). Only staff may type one (`reference_problems`); `reveal` checks
the lists again, in the web app and the worker alike, so a reference stored before an operator changed them, or
before these rules existed, is not resolved either.
"""

from __future__ import annotations

import base64
import json
import os
import re

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

ENV_REFERENCE = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


# EvalHub's own settings (README's Configuration table) and the variables its libraries read credentials from.
PROTECTED_ENV_NAMES = frozenset(
    {"SECRET_KEY", "DATABASE_URL", "DATABASE_CONN_MAX_AGE", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DEBUG"}
    | {"LOG_LEVEL", "OPENAI_API_KEY"}
)
PROTECTED_ENV_PREFIXES = ("EVALHUB_", "CELERY_", "DJANGO_", "SECURE_", "PG")  # PG*: libpq's PGPASSWORD, PGUSER…
ALLOWLIST_SETTING = "EVALHUB_SECRET_ENV_ALLOWLIST"


class SecretUnavailable(Exception):
    """A stored secret cannot be used; the message says why and what to do."""


def _fernet() -> Fernet:
    configured = getattr(settings, "EVALHUB_SECRETS_KEY", "")
    material = (configured or settings.SECRET_KEY).encode()
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"evalhub-vault", info=b"secrets").derive(material)
    return Fernet(base64.urlsafe_b64encode(key))


def seal(data: dict[str, object]) -> str:
    """Encrypt a JSON-able dict of secrets; an empty dict seals to the empty string."""
    if not data:
        return ""
    return _fernet().encrypt(json.dumps(data, sort_keys=True).encode()).decode()


def unseal(token: str) -> dict[str, object]:
    if not token:
        return {}
    try:
        return dict(json.loads(_fernet().decrypt(token.encode())))
    except InvalidToken:
        raise SecretUnavailable(
            "A stored secret can no longer be decrypted (SECRET_KEY or EVALHUB_SECRETS_KEY changed). Enter it again."
        ) from None


def env_reference(value: str) -> str | None:
    """The variable name when `value` is `${NAME}`, else None."""
    match = ENV_REFERENCE.match(value.strip())
    return match.group(1) if match else None


def reference_refusal(name: str, *, builtin: frozenset[str] = frozenset()) -> str | None:
    """Why `${name}` may not be resolved, or None when it may. `builtin`: names a built-in record reads by design
    (the OpenAI provider's OPENAI_API_KEY), allowed for that record only."""
    if name in builtin:
        return None
    if name in PROTECTED_ENV_NAMES or name.startswith(PROTECTED_ENV_PREFIXES):
        return f"${{{name}}} names one of EvalHub's own settings, which are never sent to a server or provider."
    allowed = [item.strip() for item in getattr(settings, "EVALHUB_SECRET_ENV_ALLOWLIST", [])]
    if not any(name == item or (item.endswith("*") and name.startswith(item[:-1])) for item in allowed if item):
        return (
            f"${{{name}}} is not an allowed environment variable: an operator must add {name} to "
            f"{ALLOWLIST_SETTING} (on the web app and the worker) before a secret may reference it."
        )
    return None


def reference_problems(values: dict[str, str], *, is_staff: bool) -> list[str]:
    """Why the `${NAME}` references among newly typed secrets {label: value} are refused; empty when none is."""
    problems = []
    for label, value in values.items():
        name = env_reference(value)
        if name is None:
            continue
        if not is_staff:
            problems.append(
                f"{label}: only staff may use ${{…}} references, which read this machine's environment; "
                "type the secret itself."
            )
        elif (refusal := reference_refusal(name)) is not None:
            problems.append(f"{label}: {refusal}")
    return problems


def reveal(value: str, *, builtin: frozenset[str] = frozenset()) -> str:
    """The usable value of one secret: itself, or the environment variable it references (if it may)."""
    name = env_reference(value)
    if name is None:
        return value
    if (refusal := reference_refusal(name, builtin=builtin)) is not None:
        raise SecretUnavailable(refusal)
    if name not in os.environ:
        raise SecretUnavailable(f"The environment variable {name} is not set in the process that needs it.")
    return os.environ[name]
