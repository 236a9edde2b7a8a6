"""Scrubbing configured secrets out of anything we show or store."""

from __future__ import annotations

from collections.abc import Iterable

MASK = "[redacted]"


class Redactor:
    """Replaces every configured secret value with a mask.

    Every non-empty secret is masked, even very short ones: a garbled message is better than a leaked token.
    Longest first, so a secret that contains another one is masked whole.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self._secrets = sorted({secret for secret in secrets if secret}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text
