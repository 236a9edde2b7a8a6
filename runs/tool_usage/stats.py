"""Per tool, across runs: how often it was called, its error rate, its argument error rate (and which argument was
wrong how), the scenarios that use it, and the model-side failure modes most seen. Pure.

Rates are per call: errors / calls (the server answered `isError`), argument errors / calls (a call whose arguments
break the server's input schema, runs.tool_usage.arguments, or were not a JSON object). Failure modes are per run
that expected the tool, by the confusion matrix's rule (runs.tool_usage.confusion): "never called" (nothing else
was called in its place), "wrong tool" (another tool was called instead), and per call "bad arguments".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from runs.tool_usage.arguments import WHOLE, argument_errors
from runs.tool_usage.facts import RunFacts

NOT_JSON = "not a JSON object"
NEVER_CALLED, WRONG_TOOL, BAD_ARGUMENTS = "never called", "wrong tool", "bad arguments"


@dataclass
class ToolStats:
    name: str
    calls: int = 0
    errors: int = 0
    argument_error_calls: int = 0
    # argument → kind → count ("latitude" → {"out of range": 2}).
    argument_errors: dict[str, dict[str, int]] = field(default_factory=dict)
    scenarios: set[str] = field(default_factory=set)
    never_called: int = 0
    wrong_tool: int = 0

    @property
    def scenario_names(self) -> list[str]:
        return sorted(self.scenarios)

    @property
    def error_rate(self) -> float | None:
        return self.errors / self.calls if self.calls else None

    @property
    def argument_error_rate(self) -> float | None:
        return self.argument_error_calls / self.calls if self.calls else None

    @property
    def failure_modes(self) -> list[tuple[str, int]]:
        """Most seen first; modes never seen are left out."""
        modes = [
            (NEVER_CALLED, self.never_called),
            (WRONG_TOOL, self.wrong_tool),
            (BAD_ARGUMENTS, self.argument_error_calls),
        ]
        return sorted(((mode, count) for mode, count in modes if count), key=lambda item: -item[1])

    @property
    def argument_error_lines(self) -> list[str]:
        """ "latitude: out of range 2, wrong type 1", one per argument, most errors first."""
        ordered = sorted(self.argument_errors.items(), key=lambda item: (-sum(item[1].values()), item[0]))
        return [
            f"{argument}: " + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items(), key=lambda k: -k[1]))
            for argument, kinds in ordered
        ]

    def record(self) -> dict[str, object]:
        return {
            "tool": self.name,
            "calls": self.calls,
            "errors": self.errors,
            "error_rate": self.error_rate,
            "argument_error_calls": self.argument_error_calls,
            "argument_error_rate": self.argument_error_rate,
            "argument_errors": self.argument_errors,
            "scenarios": self.scenario_names,
            "failure_modes": dict(self.failure_modes),
        }


def tool_stats(runs: Iterable[RunFacts], tool_names: Sequence[str] = ()) -> list[ToolStats]:
    """One row per tool: the server's `tool_names` in their order (called or not), then any other tool the runs
    called (an invented or since-removed name)."""
    by_name = {name: ToolStats(name) for name in tool_names}

    def row(name: str) -> ToolStats:
        return by_name.setdefault(name, ToolStats(name))

    for run in runs:
        called = set(run.called)
        unexpected = called - set(run.expected)
        for expected in run.expected:
            row(expected).scenarios.add(run.scenario)
            if expected not in called:
                if unexpected:
                    row(expected).wrong_tool += 1
                else:
                    row(expected).never_called += 1
        for call in run.calls:
            stats = row(call.name)
            stats.calls += 1
            stats.scenarios.add(run.scenario)
            stats.errors += call.is_error
            wrong = (
                [(WHOLE, NOT_JSON)]
                if call.malformed
                else [(e.argument, e.kind) for e in argument_errors(call.args, run.schemas.get(call.name) or {})]
            )
            if wrong:
                stats.argument_error_calls += 1
            for argument, kind in wrong:
                kinds = stats.argument_errors.setdefault(argument, {})
                kinds[kind] = kinds.get(kind, 0) + 1
    return list(by_name.values())


def never_called(runs: Iterable[RunFacts], tool_names: Sequence[str]) -> list[str]:
    """Coverage: the server's tools no run called, in the server's order."""
    called = {name for run in runs for name in run.called}
    return [name for name in tool_names if name not in called]
