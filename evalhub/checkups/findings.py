"""A check-up's findings, its scores and its verdict. Pure: no I/O. One decision, one place: pages, the API, the
CLI, the reports and events read what `summarise` computed and never score a check-up themselves.

Scores (0-1, like a run's): a section starts at 1 and loses ERROR_PENALTY per error and WARNING_PENALTY per warning
finding, never below 0; info findings cost nothing. The overall score is the mean of the sections that ran. The
verdict (`passed`) is the gating rule: a check-up fails when any finding is an error, whatever the scores, as a
run fails when any gating stage fails; warnings and info lower the score only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
Section = Literal["static", "compliance", "runtime", "shipped_evals"]
SECTIONS: tuple[Section, ...] = ("static", "compliance", "runtime", "shipped_evals")
SECTION_TITLES = {
    "static": "Static quality",
    "compliance": "Protocol compliance",
    "runtime": "Runtime sweep",
    "shipped_evals": "Shipped evals",
}
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
ERROR_PENALTY = 0.2
WARNING_PENALTY = 0.05


@dataclass(frozen=True)
class Finding:
    """One thing a server author can act on. `subject` is what it is about (a tool, a resource, a method),
    `field` where in it (inputSchema, outputSchema, structuredContent, nextCursor…), `evidence` what was seen."""

    section: Section
    severity: Severity
    code: str
    message: str
    recommendation: str
    subject: str = ""
    field: str = ""
    evidence: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two check-ups' findings the same finding: where and what, not the wording."""
        return (self.section, self.code, self.subject)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Finding:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


@dataclass
class Summary:
    score: float
    passed: bool
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def section_score(findings: Iterable[Finding]) -> float:
    errors = warnings = 0
    for finding in findings:
        errors += finding.severity == "error"
        warnings += finding.severity == "warning"
    return round(max(0.0, 1.0 - ERROR_PENALTY * errors - WARNING_PENALTY * warnings), 4)


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """By section, then errors first, then by subject and code: the order every surface shows them in."""
    return sorted(findings, key=lambda f: (SECTIONS.index(f.section), SEVERITY_ORDER[f.severity], f.subject, f.code))


def summarise(findings: list[Finding], *, ran: Iterable[Section]) -> Summary:
    """The scores per section that ran, the overall score, and the verdict (see the module's docstring)."""
    sections: dict[str, dict[str, Any]] = {}
    for section in SECTIONS:
        if section not in ran:
            continue
        mine = [f for f in findings if f.section == section]
        sections[section] = {
            "title": SECTION_TITLES[section],
            "score": section_score(mine),
            "counts": _counts(mine),
        }
    overall = round(sum(s["score"] for s in sections.values()) / len(sections), 4) if sections else 0.0
    return Summary(
        score=overall,
        passed=not any(f.severity == "error" for f in findings),
        sections=sections,
        counts=_counts(findings),
    )


def _counts(findings: Iterable[Finding]) -> dict[str, int]:
    counts = dict.fromkeys(SEVERITY_ORDER, 0)
    for finding in findings:
        counts[finding.severity] += 1
    return counts


@dataclass
class Comparison:
    """Two check-ups of one server: the findings the newer one no longer has (fixed), the ones it newly has, and
    those whose severity moved."""

    fixed: list[Finding] = field(default_factory=list)
    new: list[Finding] = field(default_factory=list)
    better: list[tuple[Finding, Finding]] = field(default_factory=list)
    worse: list[tuple[Finding, Finding]] = field(default_factory=list)
    unchanged: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "fixed": [f.to_dict() for f in self.fixed],
            "new": [f.to_dict() for f in self.new],
            "better": [{"before": a.to_dict(), "after": b.to_dict()} for a, b in self.better],
            "worse": [{"before": a.to_dict(), "after": b.to_dict()} for a, b in self.worse],
            "unchanged": self.unchanged,
        }


def compare(before: Iterable[Finding], after: Iterable[Finding]) -> Comparison:
    """What changed from `before` to `after`, finding by finding (matched by `Finding.key`)."""
    old = {f.key: f for f in before}
    new = {f.key: f for f in after}
    result = Comparison()
    for key, finding in new.items():
        previous = old.get(key)
        if previous is None:
            result.new.append(finding)
        elif SEVERITY_ORDER[finding.severity] > SEVERITY_ORDER[previous.severity]:
            result.better.append((previous, finding))
        elif SEVERITY_ORDER[finding.severity] < SEVERITY_ORDER[previous.severity]:
            result.worse.append((previous, finding))
        else:
            result.unchanged += 1
    result.fixed = [f for key, f in old.items() if key not in new]
    result.fixed, result.new = ordered(result.fixed), ordered(result.new)
    return result
