"""How many of something this process does at once, in all and per user. Pure: no Django, no I/O.

A process-wide limit alone lets one user (one script, or a dozen open tabs) hold every slot, and everyone else is
refused; a share per user keeps the rest for the others.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Literal

Refusal = Literal["per_user", "total"]


class Slots:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: Counter[int] = Counter()

    def take(self, user_id: int, *, total: int, per_user: int) -> Refusal | None:
        """Takes a slot for `user_id`, or says which limit refuses it."""
        with self._lock:
            if self._held[user_id] >= per_user:
                return "per_user"
            if self._held.total() >= total:
                return "total"
            self._held[user_id] += 1
            return None

    def give_back(self, user_id: int) -> None:
        with self._lock:
            self._held[user_id] -= 1
            if self._held[user_id] <= 0:
                del self._held[user_id]

    def held(self, user_id: int) -> int:
        with self._lock:
            return self._held[user_id]
