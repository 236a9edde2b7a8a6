"""What a failed scoring says, in words: the value a scorer returned instead of a score, what it threw, how much
memory it was allowed. Pure text from the document the sandbox harness sends back; no V8, no Django."""

from __future__ import annotations

from typing import Any

from scorers.sandbox_limits import SandboxLimits

# A scorer author needs the top of a stack, not fifty frames of recursion.
MAX_FRAMES = 10


def described_value(document: dict[str, Any], *, as_result: bool) -> str:
    """What the scorer returned (or its code evaluated to), in words, from the type and preview V8 sent."""
    value_type, detail = document["valueType"], document["detail"]
    hints = {
        "undefined": " — is a `return` missing?",
        "string": " — convert it with Number(…)",
        "boolean": " — return 1 or 0",
    }
    words = {
        "nan": "NaN",
        "infinity": detail,
        "out_of_range": f"{detail}, which is outside 0..1",
        "undefined": "undefined",
        "null": "null",
        "number": f"a number ({detail})",
        "string": f"a string ({detail})",
        "boolean": f"a boolean ({detail})",
        "bigint": f"a BigInt ({detail}n)",
        "symbol": "a symbol",
        "array": "an array",
        "object": "an object",
    }.get(value_type, f"a value of type {value_type}")
    return words + (hints.get(value_type, "") if as_result else "")


def exception_message(document: dict[str, Any]) -> str:
    if document["nonError"]:
        thrown = "an object" if document["valueType"] in {"object", "array"} else f"a {document['valueType']}"
        return (
            f"The scorer threw {thrown} instead of an Error: {document['detail']} "
            "(throw new Error(…) to get a stack trace)."
        )
    frames = [line for line in document["stack"].splitlines() if "scorer.js" in line]
    if len(frames) > MAX_FRAMES:
        frames = [*frames[:MAX_FRAMES], f"    … {len(frames) - MAX_FRAMES} more frames"]
    return f"The scorer threw {document['detail']}" + ("\n" + "\n".join(frames) if frames else "")


def memory_message(limits: SandboxLimits) -> str:
    megabytes = limits.max_memory_bytes / (1024 * 1024)
    return f"Out of memory: the scorer used more than {megabytes:g} MB of JavaScript heap."
