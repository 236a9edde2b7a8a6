"""Comparing a candidate experiment with a baseline, cell by cell, from their stored cells (two queries).

Cells match on (scenario, model, tool mode, variant). Each cell present in both gets a verdict from
runs.experiments.stats (Fisher's exact test on decided trials only; a single-trial flip counts) and deltas; cells on
one side only are new or removed, and a finished cell with no decided trial leaves its row undecided.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property
from html import escape
from operator import attrgetter
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from runs.experiments.matrix import CellView
from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.stats import CellOutcome, Verdict, compare_cells, fisher_exact_two_sided, percentile
from runs.models import Run

NEW, REMOVED, UNDECIDED = "new", "removed", "undecided"
MINUS = "\N{MINUS SIGN}"


def _delta(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else after - before


def _cost_per_trial(cell: ExperimentCell) -> float | None:
    return float(cell.cost_usd) / cell.counted if cell.cost_usd is not None and cell.counted else None


@dataclass(frozen=True)
class CellComparison:
    scenario_name: str
    model: str
    baseline: CellView | None
    candidate: CellView | None
    # None for new and removed cells, and for cells with no decided trial yet on a side.
    verdict: Verdict | None
    # Fisher's two-sided p on the decided trials, when both sides have some.
    p_value: float | None = None

    @cached_property
    def kind(self) -> str:
        if self.baseline is None:
            return NEW
        if self.candidate is None:
            return REMOVED
        if self.verdict:
            return str(self.verdict)
        # Every trial of a side finished and none was decided: only inconclusive ones, nothing to compare.
        finished = all(view.cell.finished >= view.cell.trials for view in (self.baseline, self.candidate))
        return UNDECIDED if finished else "pending"

    @property
    def label(self) -> str:
        return self.kind.replace("changed_not_significant", "changed, not significant").replace("_", " ")

    def _both(self, name: str) -> tuple[Any, Any]:
        return (
            getattr(self.baseline, name) if self.baseline else None,
            getattr(self.candidate, name) if self.candidate else None,
        )

    @property
    def pass_rate_delta(self) -> float | None:
        return _delta(*self._both("pass_rate"))

    @property
    def p50_delta_ms(self) -> float | None:
        return _delta(*self._both("p50_ms"))

    def _cells(self, name: str) -> tuple[Any, Any]:
        before, after = (getattr(view.cell, name) if view else None for view in (self.baseline, self.candidate))
        return before, after

    @property
    def score_delta(self) -> float | None:
        return _delta(*self._cells("score_mean"))

    @property
    def tokens_delta(self) -> float | None:
        return _delta(*self._cells("tokens_mean"))

    @property
    def cost_delta(self) -> float | None:
        """Change of the mean cost per trial, in USD."""
        before, after = (_cost_per_trial(v.cell) if v else None for v in (self.baseline, self.candidate))
        return _delta(before, after)

    @property
    def delta_texts(self) -> list[str]:
        """Pass rate, score, cost per trial, p50 duration and tokens: signed (real minus), "—" when unknown."""
        rate, score, cost = self.pass_rate_delta, self.score_delta, self.cost_delta
        p50, tokens = self.p50_delta_ms, self.tokens_delta
        return [
            "—" if rate is None else f"{_signed(round(rate * 100))} pts",
            "—" if score is None else _signed(round(score, 2)),
            "—" if cost is None else _signed(round(cost, 4), currency="$"),
            "—" if p50 is None else f"{_signed(round(p50 / 1000, 1))} s",
            "—" if tokens is None else _signed(round(tokens)),
        ]

    def html(self, divergence_url: str | None) -> SafeString:
        """One <tr> of the compare page, built with the standard library's escape: through the template, 250 rows
        cost most of the page's time budget (bench/experiment_bench.py). `divergence_url` links the first
        divergence of a regressed cell."""
        before, after = self.baseline, self.candidate
        badge = {"regressed": "badge-fail", "fixed": "badge-pass", NEW: "badge-active", REMOVED: "badge-active"}
        passes = (
            f"{f'{before.cell.passes}/{before.k}' if before else '—'} → "
            f"{f'{after.cell.passes}/{after.k}' if after else '—'}"
        )
        if self.p_value is not None and self.pass_rate_delta:  # equal rates: p = 1, nothing to read
            passes += f" · p {self.p_value:.3f}"
        undecided = [view.cell.inconclusive for view in (before, after) if view]
        if any(undecided):
            passes += f" ({' → '.join(str(count) for count in undecided)} inconclusive)"
        causes = ""
        if after and after.causes_text:
            causes = f'<div class="cell-line">causes: {escape(after.causes_text)}</div>'

        title = f' title="{escape(self.verdict.description)}"' if self.verdict else ""
        deltas = "".join(f'<td class="delta">{escape(text)}</td>' for text in self.delta_texts)
        link = f'<a href="{escape(divergence_url)}">First divergence</a>' if divergence_url else ""
        return mark_safe(  # noqa: S308 — every interpolated text is escaped
            f'<tr data-kind="{self.kind}" class="verdict-{self.kind}"><td>{escape(self.scenario_name)}</td>'
            f'<td class="mono small">{escape(self.model)}</td>'
            f'<td><span class="badge {badge.get(self.kind, "")}"{title}>{escape(self.label)}</span></td>'
            f"<td>{escape(passes)}{causes}</td>{deltas}<td>{link}</td></tr>"
        )

    def record(self) -> dict[str, Any]:
        return {
            "scenario_name": self.scenario_name,
            "model": self.model,
            "kind": self.kind,
            "verdict": str(self.verdict) if self.verdict else None,
            "description": self.verdict.description if self.verdict else "",
            "p_value": self.p_value,
            "baseline": self.baseline.record() if self.baseline else None,
            "candidate": self.candidate.record() if self.candidate else None,
            "delta": {
                "pass_rate": self.pass_rate_delta,
                "score_mean": self.score_delta,
                "cost_usd_per_trial": self.cost_delta,
                "duration_p50_ms": self.p50_delta_ms,
                "tokens_mean": self.tokens_delta,
            },
        }


@dataclass(frozen=True)
class Comparison:
    candidate: Experiment
    baseline: Experiment
    rows: list[CellComparison]
    cost_change: float | None  # relative: -0.12 reads "cost minus 12 %"; None when unknown or the baseline cost nothing
    cost_before: float | None
    cost_after: float | None
    p50_delta_ms: float | None

    def count(self, kind: str) -> int:
        return sum(row.kind == kind for row in self.rows)

    @property
    def regressed(self) -> list[CellComparison]:
        return [row for row in self.rows if row.verdict == Verdict.REGRESSED]

    @property
    def summary(self) -> str:
        """E.g. "2 regressed, 1 fixed, 14 unchanged; cost -12 %; p50 latency +0.4 s", with a real minus sign."""
        regressed, fixed = self.count(Verdict.REGRESSED), self.count(Verdict.FIXED)
        common = sum(row.verdict is not None for row in self.rows)
        parts = [f"{regressed} regressed, {fixed} fixed, {common - regressed - fixed} unchanged"]
        new, removed = self.count(NEW), self.count(REMOVED)
        if new or removed:
            parts[0] += f", {new} new, {removed} removed"
        if undecided := self.count(UNDECIDED):
            parts[0] += f", {undecided} undecided (only inconclusive trials)"
        if self.cost_change is not None:
            parts.append(f"cost {_signed(round(self.cost_change * 100))} %")
        elif self.cost_before == 0 and self.cost_after is not None:
            parts.append("cost unchanged ($0)" if self.cost_after == 0 else f"cost +${self.cost_after:.4f} per trial")
        if self.p50_delta_ms is not None:
            parts.append(f"p50 latency {_signed(round(self.p50_delta_ms / 1000, 1))} s")
        return "; ".join(parts)

    def html_rows(self) -> list[SafeString]:
        """The compare table's rows, a regressed cell linking its first divergence (one query for all of them)."""
        links = divergence_links(self.regressed)
        return [row.html(links.get(row.candidate.cell.pk) if row.candidate else None) for row in self.rows]

    def record(self) -> dict[str, Any]:
        return {
            "candidate_id": self.candidate.pk,
            "baseline_id": self.baseline.pk,
            "summary": self.summary,
            "counts": {
                kind: self.count(kind)
                for kind in [*(str(v) for v in Verdict), NEW, REMOVED, UNDECIDED, "pending"]
                if self.count(kind)
            },
            "cost_change": self.cost_change,
            "duration_p50_delta_ms": self.p50_delta_ms,
            "cells": [row.record() for row in self.rows],
        }


def _signed(value: float, *, currency: str = "") -> str:
    # A real minus sign, as in the summary line people read; dollars written as everywhere else ("+$0.002").
    if value > 0:
        return f"+{currency}{value:g}"
    return f"{MINUS}{currency}{-value:g}" if value < 0 else f"±{currency}0"


def _outcome(view: CellView | None) -> CellOutcome | None:
    return view.cell.counts.outcome() if view else None


def compare_experiments(
    *,
    candidate: Experiment,
    baseline: Experiment,
    candidate_cells: list[ExperimentCell],
    baseline_cells: list[ExperimentCell],
    key: Callable[[ExperimentCell], Hashable] = attrgetter("key"),
) -> Comparison:
    """`key` is what makes two cells the same cell: ExperimentCell.key between experiments; within one, the
    variants' comparison (runs/variants/compare.py) leaves the variant out."""
    before = {key(cell): CellView(cell) for cell in baseline_cells}
    after = {key(cell): CellView(cell) for cell in candidate_cells}
    keys = [*after, *(same for same in before if same not in after)]
    rows = []
    for same in keys:
        old, new = before.get(same), after.get(same)
        named = (new or old).cell  # type: ignore[union-attr]
        old_outcome, new_outcome = _outcome(old), _outcome(new)
        verdict, p_value = None, None
        if old_outcome and new_outcome:
            verdict = compare_cells(old_outcome, new_outcome)
            p_value = fisher_exact_two_sided(
                old_outcome.passes, old_outcome.trials, new_outcome.passes, new_outcome.trials
            )
        rows.append(CellComparison(named.scenario_name, named.model_label, old, new, verdict, p_value))
    common = [row for row in rows if row.baseline and row.candidate]

    def cost(side: str) -> float | None:
        cells = [getattr(row, side).cell for row in common if getattr(row, side).cell.counted]
        costs = [cell.cost_usd for cell in cells]
        counted = sum(cell.counted for cell in cells)
        return None if None in costs or not counted else float(sum(c for c in costs if c is not None)) / counted

    def p50(side: str) -> float | None:
        durations = [d for row in common for d in getattr(row, side).cell.durations_ms]
        return percentile(durations, 50) if durations else None

    cost_before, cost_after = cost("baseline"), cost("candidate")
    change = (cost_after - cost_before) / cost_before if cost_before and cost_after is not None else None
    return Comparison(
        candidate=candidate,
        baseline=baseline,
        rows=rows,
        cost_change=change,
        cost_before=cost_before,
        cost_after=cost_after,
        p50_delta_ms=_delta(p50("baseline"), p50("candidate")),
    )


def experiment_compare(*, candidate: Experiment, baseline: Experiment) -> Comparison:
    """Two queries: each side's cells."""
    return compare_experiments(
        candidate=candidate,
        baseline=baseline,
        candidate_cells=list(candidate.cells.all()),
        baseline_cells=list(baseline.cells.all()),
    )


def _divergence_pairs(regressed: list[CellComparison]) -> dict[int, tuple[int, int]]:
    """For each regressed cell (by candidate cell id): a passing baseline run and a failing candidate run, read
    in one query whatever the number of cells."""
    pairs: dict[int, tuple[int, int]] = {}
    if not regressed:
        return pairs
    cell_ids = [view.cell.pk for row in regressed for view in (row.baseline, row.candidate) if view]
    runs = Run.objects.filter(cell_id__in=cell_ids, status__in=("done", "error")).order_by("trial", "pk")
    passing: dict[int, int] = {}
    failing: dict[int, int] = {}
    for cell_id, run_id, passed in runs.values_list("cell_id", "pk", "passed"):
        (passing if passed else failing).setdefault(cell_id, run_id)
    for row in regressed:
        assert row.baseline is not None and row.candidate is not None  # regressed cells are in both
        before, after = passing.get(row.baseline.cell.pk), failing.get(row.candidate.cell.pk)
        if before and after:
            pairs[row.candidate.cell.pk] = (before, after)
    return pairs


def divergence_links(regressed: list[CellComparison]) -> dict[int, str]:
    """Per regressed cell (by candidate cell id), the page of its first divergence: a passing baseline trial
    against a failing candidate trial."""
    return {
        cell_id: reverse("experiments:divergence", args=[bad]) + f"?baseline={good}"
        for cell_id, (good, bad) in _divergence_pairs(regressed).items()
    }
