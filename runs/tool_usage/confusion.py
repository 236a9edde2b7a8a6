"""The tool confusion matrix: for runs whose scenario expects tools, which tool was expected against which was
called. Pure.

Per run and per expected tool `e`:
- `e` was called → one count in (e, e), the diagonal;
- else every distinct tool the run called that it was not expected to call → one count in (e, that tool): the
  agent took it for `e`;
- else (nothing, or only other expected tools, was called) → one count in (e, NOT_CALLED).
Runs without expected tools are left out: there is nothing to be confused with.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from runs.tool_usage.facts import RunFacts

NOT_CALLED = "(not called)"


@dataclass
class Confusion:
    """counts[(expected, called)] and the runs behind each count, in the order seen."""

    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    runs: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    @property
    def expected(self) -> list[str]:
        return sorted({e for e, _ in self.counts})

    @property
    def called(self) -> list[str]:
        """Columns: the expected tools first (so the diagonal reads top-left to bottom-right), then the others,
        then NOT_CALLED."""
        expected = self.expected
        others = sorted({c for _, c in self.counts} - set(expected) - {NOT_CALLED})
        return [*expected, *others, *([NOT_CALLED] if any(c == NOT_CALLED for _, c in self.counts) else [])]

    @property
    def confused(self) -> int:
        """Counts off the diagonal."""
        return sum(count for (e, c), count in self.counts.items() if e != c)

    @property
    def hits(self) -> int:
        """Counts on the diagonal: the expected tool was called."""
        return sum(count for (e, c), count in self.counts.items() if e == c)

    @property
    def misses(self) -> list[tuple[str, str, int]]:
        """(expected, called instead, count) off the diagonal, most first: one line per day on a scenario's page."""
        off = [(e, c, count) for (e, c), count in self.counts.items() if e != c]
        return sorted(off, key=lambda miss: (-miss[2], miss[0], miss[1]))

    def add(self, expected: str, called: str, run_id: int) -> None:
        key = (expected, called)
        self.counts[key] = self.counts.get(key, 0) + 1
        self.runs.setdefault(key, []).append(run_id)

    def rows(self) -> list[tuple[str, list[tuple[str, int, list[int]]]]]:
        """[(expected, [(called, count, run ids) per column])], for a table."""
        columns = self.called
        return [
            (e, [(c, self.counts.get((e, c), 0), self.runs.get((e, c), [])) for c in columns]) for e in self.expected
        ]

    def record(self) -> dict[str, object]:
        return {
            "expected": self.expected,
            "called": self.called,
            "cells": [
                {"expected": e, "called": c, "count": count, "run_ids": self.runs[(e, c)]}
                for (e, c), count in sorted(self.counts.items())
            ],
            "confused": self.confused,
        }


def confusion_matrix(runs: Iterable[RunFacts]) -> Confusion:
    matrix = Confusion()
    for run in runs:
        called = set(run.called)
        unexpected = sorted(called - set(run.expected))
        for expected in run.expected:
            if expected in called:
                matrix.add(expected, expected, run.run_id)
            elif unexpected:
                for other in unexpected:
                    matrix.add(expected, other, run.run_id)
            else:
                matrix.add(expected, NOT_CALLED, run.run_id)
    return matrix
