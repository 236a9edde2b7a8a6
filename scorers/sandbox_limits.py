"""What a code scoring may use (`SandboxLimits`) and how it can fail (`ErrorKind`). Shared by the sandbox's
public API, its engine and its host process."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class ErrorKind(StrEnum):
    """Why a scoring errored. Huge console output is truncated, never an error."""

    SYNTAX_ERROR = "syntax_error"
    NOT_A_FUNCTION = "not_a_function"
    EXCEPTION = "exception"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    INVALID_RESULT = "invalid_result"
    SOURCE_TOO_LARGE = "source_too_large"
    INPUT_TOO_LARGE = "input_too_large"
    RESULT_TOO_LARGE = "result_too_large"
    CRASHED = "crashed"  # the engine process died for a reason we cannot name
    SANDBOX_ERROR = "sandbox_error"  # a bug on our side; the scorer may be fine


@dataclass(frozen=True)
class SandboxLimits:
    """What one scoring may use. Sizes are bytes (UTF-8) unless named otherwise."""

    timeout_seconds: float = 1.0  # wall clock for the scorer's code, promise callbacks included
    max_memory_bytes: int = 64 * 1024 * 1024  # V8 heap
    max_source_bytes: int = 100 * 1024
    max_input_bytes: int = 8 * 1024 * 1024  # the record as JSON; it must fit in the heap with room to spare
    max_console_lines: int = 200
    max_console_bytes: int = 32 * 1024
    max_message_chars: int = 4000  # an error message, and its stack, each
    max_result_bytes: int = 512 * 1024  # the outcome document that crosses from V8 to Python

    def __post_init__(self) -> None:
        if self.timeout_seconds <= 0:
            raise ValueError("timeout_seconds must be positive")
        sizes = [
            self.max_memory_bytes,
            self.max_source_bytes,
            self.max_input_bytes,
            self.max_console_bytes,
            self.max_message_chars,
            self.max_result_bytes,
        ]
        if self.max_console_lines < 0 or any(size <= 0 for size in sizes):
            raise ValueError("sandbox limits must be positive")


LEVELS = frozenset({"log", "info", "warn", "error"})


def limits_payload(limits: SandboxLimits) -> dict[str, Any]:
    """The limits as JSON for the host process."""
    return asdict(limits)
