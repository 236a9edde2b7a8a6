"""How a run's tool calls are numbered wherever people read them: the run page's transcript, the expectations'
messages and their links. One scheme, so "call 1.1" on one line is "call 1.1" on the next:

- the run's own calls (the model's, or EvalHub's direct call) count 1, 2, 3 in order;
- the calls a program made (code mode: a `run_code` call's `nestedCalls`) count under it: 1.1, 1.2.

allToolCalls lists a call and then the calls nested in it (depth first); `labels` gives each of its positions its
label. A call's anchor on the run page stays its position there (#call-2), which is not a number anyone reads.
Pure: reads the recorded shapes only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def labels(top_level: Sequence[Any]) -> list[str]:
    """The label of each allToolCalls position, given the run's top-level records (`toolCalls`, with their
    `nestedCalls`): ["1", "1.1", "1.2", "2"]."""
    found: list[str] = []
    for number, record in enumerate((r for r in top_level if isinstance(r, Mapping)), start=1):
        _label(record, str(number), found)
    return found


def _label(record: Mapping[str, Any], label: str, found: list[str]) -> None:
    found.append(label)
    nested = record.get("nestedCalls")
    children = [child for child in nested if isinstance(child, Mapping)] if isinstance(nested, list) else []
    for index, child in enumerate(children, start=1):
        _label(child, f"{label}.{index}", found)


def labels_for(top_level: Sequence[Any], all_calls: Sequence[Any]) -> list[str]:
    """`labels`, when they account for every call of allToolCalls; else positions counted from 1 (a record from
    before nested calls existed lists them all at the top level, or has only one of the two lists)."""
    found = labels(top_level)
    return found if len(found) == len(all_calls) else [str(position) for position in range(1, len(all_calls) + 1)]
