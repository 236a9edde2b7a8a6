"""Which tools look destructive, so that calling one for real needs the server owner's acknowledgment. Pure: no
database.

A guess, on purpose generous: the tool says so itself (`destructiveHint: true`), or a word of its name is one of
DESTRUCTIVE_WORDS (delete_file, bookFlight, payments.send). The MCP default of destructiveHint (true when it is
absent) is not used: it would count every tool without annotations, `add` included. A server can lie in its
annotations; its name is checked whatever they say.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

DESTRUCTIVE_WORDS = frozenset(
    {"delete", "remove", "drop", "destroy", "erase", "purge", "wipe", "truncate", "overwrite", "reset", "revoke"}
    | {"kill", "terminate", "shutdown", "cancel", "book", "reserve", "purchase", "buy", "pay", "charge", "transfer"}
    | {"refund", "send", "email", "publish", "post", "deploy", "rm"}
)
# Lower-case runs, capitalised words and acronyms of a name: "deleteFile" → delete, file; "HTTPSend" → http, send.
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def name_words(name: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(name)]


def looks_destructive(tool: Mapping[str, Any]) -> bool:
    """Whether calling `tool` (a tools/list definition) may do something that cannot be taken back."""
    annotations = tool.get("annotations") or {}
    if isinstance(annotations, Mapping) and annotations.get("destructiveHint") is True:
        return True
    return not DESTRUCTIVE_WORDS.isdisjoint(name_words(str(tool.get("name", ""))))
