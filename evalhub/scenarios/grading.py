"""How a scenario is graded, as its page states it: each expectation (gating or score-only), each attached scorer
(gating at its threshold or advisory), the default scorer when there is neither, tool errors, the threshold.

Pure (no Django): the view hands in the scenario's fields and its attachments as plain values. It follows what
runs.scoring does with them (expectations and attached scorers, else the default scorer), and says so in words;
the verdict itself stays runs.verdict's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorers.expectations import describe
from scorers.expectations.validation import validate_expectation


@dataclass(frozen=True)
class ExpectationLine:
    kind: str
    tool: str  # "" for kinds that name no tool (the final answer, the run's budgets)
    sentence: str  # the expectation's own description, else the generated sentence with its matchers
    gating: bool
    weight: float
    error: str = ""  # set when the stored expectation no longer validates: it then counts 0


@dataclass(frozen=True)
class AttachedScorer:
    """One attached scorer as the view reads it (scorers.ScenarioScorer)."""

    scorer_id: int
    name: str
    kind: str  # "code" or "judge"
    advisory: bool
    threshold: float | None  # its own threshold; None: the scenario's


@dataclass(frozen=True)
class ScorerLine:
    scorer_id: int
    name: str
    kind: str
    gating: bool
    threshold: float  # the threshold it passes at (its own or the scenario's)
    own_threshold: bool


@dataclass(frozen=True)
class Grading:
    expectations: tuple[ExpectationLine, ...]
    scorers: tuple[ScorerLine, ...]
    # Set when there are neither expectations nor scorers: what the default scorer checks.
    default_scorer: str
    tool_errors_expected: bool
    threshold: float

    @property
    def gates(self) -> int:
        return sum(line.gating for line in self.expectations) + sum(line.gating for line in self.scorers)


def grading_summary(
    *,
    expectations: Sequence[Mapping[str, Any]],
    scorers: Sequence[AttachedScorer],
    expected_tools: Sequence[str],
    tool_errors_expected: bool,
    threshold: float,
) -> Grading:
    default = "" if expectations or scorers else _default_scorer(expected_tools, tool_errors_expected)
    return Grading(
        expectations=tuple(_expectation(item, index) for index, item in enumerate(expectations)),
        scorers=tuple(
            ScorerLine(
                scorer_id=s.scorer_id,
                name=s.name,
                kind=s.kind,
                gating=not s.advisory,
                threshold=s.threshold if s.threshold is not None else threshold,
                own_threshold=s.threshold is not None,
            )
            for s in scorers
        ),
        default_scorer=default,
        tool_errors_expected=tool_errors_expected,
        threshold=threshold,
    )


def _expectation(item: Mapping[str, Any], index: int) -> ExpectationLine:
    errors = validate_expectation(item, f"expectations[{index}]") if isinstance(item, Mapping) else ["not an object"]
    kind = str(item.get("kind", "?")) if isinstance(item, Mapping) else "?"
    if errors:
        return ExpectationLine(kind=kind, tool="", sentence="", gating=True, weight=1.0, error="; ".join(errors))
    return ExpectationLine(
        kind=kind,
        tool=str(item.get("tool", "")),
        sentence=str(item.get("description") or describe(item)),
        gating=bool(item.get("required", True)),
        weight=float(item.get("weight", 1)),
    )


def _default_scorer(expected_tools: Sequence[str], tool_errors_expected: bool) -> str:
    """runs.scoring.default_verdict in one sentence."""
    wanted = list(dict.fromkeys(expected_tools))
    called = f"every expected tool is called ({' → '.join(wanted)})" if wanted else "any tool is called"
    errors = (
        "tool errors are expected, so they do not fail it" if tool_errors_expected else "no tool call returns an error"
    )
    return f"It passes when {called} and {errors}."
