"""Secrets at rest: tokens, API keys, secret headers and environment variables.

A secret is stored either encrypted (Fernet, keyed from EVALHUB_SECRETS_KEY or else derived from SECRET_KEY), or as a
reference `${NAME}` to an environment variable of the process that uses it, which keeps the value out of the
database entirely. Both are sealed the same way; `reveal` returns the usable value.
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


def reveal(value: str) -> str:
    """The usable value of one secret: itself, or the environment variable it references."""
    name = env_reference(value)
    if name is None:
        return value
    if name not in os.environ:
        raise SecretUnavailable(f"The environment variable {name} is not set in the process that needs it.")
    return os.environ[name]
