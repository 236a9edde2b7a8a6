"""The experiment matrix as data: rows of scenarios, columns of models, totals per model, and the cost chart.

Built from the stored cells alone (no run is read), so the page, the API and the reports cost the same whatever
the number of runs. Every figure comes from runs.experiments.stats.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from functools import cached_property
from html import escape
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from evalhub.templatetags.evalhub_tags import duration, score, usd
from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.stats import is_flaky, pass_at_k, pass_hat_k, percentile, wilson_interval

CHART_WIDTH, CHART_HEIGHT = 420, 180
# Room for the axis labels: left of the y axis, under the x axis, and above and right of the plot.
CHART_LEFT, CHART_RIGHT, CHART_TOP, CHART_BOTTOM = 48, 400, 16, 150
_LABEL_LINE = 13  # px from one point label's baseline to the next
_CHAR_WIDTH = 6.5  # px per character of a point label (11 px text), near enough to tell whether two overlap


def tally_text(tally: dict[str, int]) -> str:
    """ "server 5, provider 1": a cell's trials per failure cause (or per first failed stage), most first."""
    ordered = sorted(tally.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{name} {count}" for name, count in ordered)


@dataclass(frozen=True)
class CellView:
    """One cell's figures. `k` is the number of decided trials (passed or failed; inconclusive ones are left out)."""

    cell: ExperimentCell

    @property
    def k(self) -> int:
        return self.cell.counted

    @cached_property
    def pass_rate(self) -> float | None:
        return self.cell.passes / self.k if self.k else None

    @cached_property
    def pass_at_k(self) -> float | None:
        return pass_at_k(self.k, self.cell.passes, self.k) if self.k else None

    @cached_property
    def pass_hat_k(self) -> float | None:
        return pass_hat_k(self.k, self.cell.passes, self.k) if self.k else None

    @cached_property
    def p50_ms(self) -> float | None:
        return percentile(self.cell.durations_ms, 50) if self.cell.durations_ms else None

    @cached_property
    def p95_ms(self) -> float | None:
        return percentile(self.cell.durations_ms, 95) if self.cell.durations_ms else None

    @cached_property
    def flaky(self) -> bool:
        return is_flaky(self.cell.passes, self.k)

    @cached_property
    def lines(self) -> list[str]:
        """The cell's figures as the matrix prints them, formatted here: a page of 250 cells renders in a
        fraction of the time the same formatting takes through template filters."""
        if not self.k:
            return []
        cell, k = self.cell, self.k
        rates = f"pass@{k} {score(self.pass_at_k)} · pass^{k} {score(self.pass_hat_k)}"
        if k > 1:
            rates += f" · pass@1 {score(self.pass_rate)}"
        scored = f"score {score(cell.score_mean)}"
        if cell.score_mean is not None and k > 1:
            scored += f" [{score(cell.score_low)}, {score(cell.score_high)}]"
        tokens = "—" if cell.tokens_mean is None else f"{cell.tokens_mean:.0f}"
        return [
            rates,
            scored,
            f"p50 {duration(self.p50_ms)} · p95 {duration(self.p95_ms)}",
            f"{tokens} tok · {usd(cell.cost_usd)}",
        ]

    @property
    def bar_percent(self) -> int:
        return round(100 * (self.pass_rate or 0))

    @property
    def causes_text(self) -> str:
        """ "server 5, provider 1": the trials that did not pass, by whose failure it was."""
        return tally_text(self.cell.failure_causes)

    @property
    def stages_text(self) -> str:
        """ "result returned 5": the failed trials by the first stage they failed at."""
        return tally_text(self.cell.failed_stages)

    @property
    def state(self) -> str:
        """pass / fail / flaky / inconclusive / pending: the cell's colour."""
        if not self.k:
            return "inconclusive" if self.cell.inconclusive else "pending"
        if self.flaky:
            return "flaky"
        return "pass" if self.cell.passes == self.k else "fail"

    def html(self, runs_url: str) -> SafeString:
        """The matrix <td>'s content. Built here with the standard library's escape rather than by the template or
        format_html: at 250 cells either costs most of the page's time budget (bench/experiment_bench.py)."""
        cell = self.cell
        judged = self.k or cell.inconclusive
        lines = [cell.counts.text, *self.lines] if judged else ["waiting for a first trial"]
        if self.causes_text:
            lines.append(f"causes: {self.causes_text}")
        if self.stages_text:
            lines.append(f"failed at: {self.stages_text}")
        if cell.reruns:
            lines.append(f"{cell.reruns} inconclusive trial{'s' if cell.reruns != 1 else ''} re-run")
        count = f"{cell.passes}/{self.k}" if self.k else "—"
        progress = (
            f' <span class="muted small">{cell.finished} of {cell.trials} finished</span>'
            if cell.finished < cell.trials
            else ""
        )
        flaky = ' <span class="badge badge-warn">flaky</span>' if self.flaky else ""
        if cell.self_judging:
            flaky += (
                ' <span class="badge badge-warn" title="A judge of this cell is the model under test: it graded '
                'its own answers">self-judging</span>'
            )
        figures = "".join(f'<div class="cell-line">{escape(line)}</div>' for line in lines)
        return mark_safe(  # noqa: S308 — every interpolated text is escaped above; the rest are our integers
            f'<a class="cell-count" href="{escape(runs_url)}?cell={cell.pk}" title="List this cell&#x27;s runs">'
            f"{escape(count)}</a>{progress}{flaky}"
            f'<span class="cell-bar" aria-hidden="true"><span style="width: {self.bar_percent}%"></span></span>'
            f"{figures}"
        )

    def record(self) -> dict[str, Any]:
        cell = self.cell
        return {
            "id": cell.pk,
            "scenario_id": cell.scenario_id,
            "scenario_name": cell.scenario_name,
            "provider_id": cell.provider_id,
            "provider_name": cell.provider_name,
            "model": cell.model,
            "tool_mode": cell.tool_mode,
            "variant": cell.variant,
            "fault_profile": cell.fault_profile,
            "column": cell.column,
            "trials": cell.trials,
            "finished": cell.finished,
            "counted": cell.counted,
            "passes": cell.passes,
            "failed": cell.counted - cell.passes,
            "inconclusive": cell.inconclusive,
            "errors": cell.errors,
            "failure_causes": cell.failure_causes,
            "failed_stages": cell.failed_stages,
            "self_judging": cell.self_judging,
            "reruns": cell.reruns,
            "pass_rate": self.pass_rate,
            "k": self.k,
            "pass_at_k": self.pass_at_k,
            "pass_hat_k": self.pass_hat_k,
            "pass_at_1": self.pass_rate,
            "pass_hat_1": self.pass_rate,
            "score_mean": cell.score_mean,
            "score_interval": [cell.score_low, cell.score_high] if cell.score_mean is not None else None,
            "duration_p50_ms": self.p50_ms,
            "duration_p95_ms": self.p95_ms,
            "tokens_mean": cell.tokens_mean,
            "cost_usd": float(cell.cost_usd) if cell.cost_usd is not None else None,
            "flaky": self.flaky,
            "failure": cell.failure,
        }


@dataclass(frozen=True)
class ModelTotals:
    label: str
    passes: int
    counted: int
    low: float
    high: float
    cost_usd: Decimal | None
    median_ms: float | None

    @property
    def pass_rate(self) -> float | None:
        return self.passes / self.counted if self.counted else None

    @property
    def cost_per_trial(self) -> float | None:
        return float(self.cost_usd) / self.counted if self.cost_usd is not None and self.counted else None

    def record(self) -> dict[str, Any]:
        return {
            "model": self.label,
            "passes": self.passes,
            "counted": self.counted,
            "pass_rate": self.pass_rate,
            "pass_rate_interval": [self.low, self.high],
            "cost_usd": float(self.cost_usd) if self.cost_usd is not None else None,
            "duration_median_ms": self.median_ms,
        }


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    label: str
    rate: float
    cost: float

    label_y: float = 0.0  # set by `_place_labels`

    @property
    def label_x(self) -> float:
        return self.x + 9

    @property
    def label_width(self) -> float:
        return _CHAR_WIDTH * (len(self.label) + len(" · 100 %"))


def _place_labels(points: list[ChartPoint]) -> list[ChartPoint]:
    """Each label beside its point (below it on the top line, so it stays inside the chart); a label that would
    overlap one placed before (two models with the same pass rate at about the same cost) moves a line away,
    down, or up near the bottom axis."""
    placed: list[ChartPoint] = []
    for point in points:
        y = point.y + 4 if point.y > CHART_TOP + 8 else point.y + 16
        step = _LABEL_LINE if y < CHART_BOTTOM - 2 * _LABEL_LINE else -_LABEL_LINE
        while any(_overlap(point, y, other) for other in placed):
            y += step
        placed.append(replace(point, label_y=y))
    return placed


def _overlap(point: ChartPoint, y: float, other: ChartPoint) -> bool:
    beside = point.label_x < other.label_x + other.label_width and other.label_x < point.label_x + point.label_width
    return beside and abs(y - other.label_y) < _LABEL_LINE


@dataclass(frozen=True)
class Chart:
    points: list[ChartPoint]
    top_cost: float
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    left: int = CHART_LEFT
    right: int = CHART_RIGHT
    top: int = CHART_TOP
    bottom: int = CHART_BOTTOM


@dataclass(frozen=True)
class Matrix:
    columns: list[str]
    rows: list[tuple[str, int | None, list[CellView | None]]]
    totals: list[ModelTotals]

    def display_rows(self, runs_url: str) -> list[tuple[str, int | None, list[tuple[str, SafeString] | None]]]:
        """Rows for the page: (scenario, its id, [(state, the cell's HTML) or None per column])."""
        return [
            (name, scenario_id, [(v.state, v.html(runs_url)) if v else None for v in views])
            for name, scenario_id, views in self.rows
        ]

    @property
    def cells(self) -> list[CellView]:
        return [view for _, _, views in self.rows for view in views if view is not None]

    def chart(self) -> Chart:
        """Pass rate (up) against mean cost per trial (right), one point per model; unknown costs are left out.
        The x axis runs from $0 to the dearest model (to $1 when every model is free, e.g. the offline one)."""
        known = [t for t in self.totals if t.pass_rate is not None and t.cost_per_trial is not None]
        dearest = max((t.cost_per_trial or 0.0 for t in known), default=0.0)
        scale = dearest or 1.0
        width, height = CHART_RIGHT - CHART_LEFT, CHART_BOTTOM - CHART_TOP
        points = [
            ChartPoint(
                x=round(CHART_LEFT + width * (t.cost_per_trial or 0.0) / scale, 1),
                y=round(CHART_BOTTOM - height * (t.pass_rate or 0.0), 1),
                label=t.label,
                rate=t.pass_rate or 0.0,
                cost=t.cost_per_trial or 0.0,
            )
            for t in known
        ]
        return Chart(points=_place_labels(points), top_cost=scale)


def column_label(choice: dict[str, Any], duplicates: set[str]) -> str:
    """The model's name; with its provider when two providers' models share a name, its tool mode when the
    experiment compares modes, its variant when the column offers one (runs/variants), and its fault profile when
    it compares those (runs/fault_injection/profiles.py)."""
    model = str(choice["model"])
    label = f"{model} ({choice['provider']})" if model in duplicates else model
    parts = (label, choice.get("tool_mode"), choice.get("variant"), choice.get("fault_profile"))
    return " · ".join(str(part) for part in parts if part)


def build_matrix(experiment: Experiment, cells: list[ExperimentCell]) -> Matrix:
    # A model run in two tool modes is one model: only two providers' models sharing a name are told apart.
    names = [model for model, _ in dict.fromkeys((str(c["model"]), str(c["provider"])) for c in experiment.model_list)]
    duplicates = {name for name in names if names.count(name) > 1}
    columns = [column_label(choice, duplicates) for choice in experiment.model_list]
    grid: dict[int, list[CellView | None]] = {}
    names_by_row: dict[int, tuple[str, int | None]] = {}
    for cell in cells:
        grid.setdefault(cell.row, [None] * len(columns))[cell.column] = CellView(cell)
        names_by_row[cell.row] = (cell.scenario_name, cell.scenario_id)
    rows = [(*names_by_row[row], grid[row]) for row in sorted(grid)]
    totals = []
    for column, label in enumerate(columns):
        own = [cell for cell in cells if cell.column == column]
        passes, counted = sum(c.passes for c in own), sum(c.counted for c in own)
        low, high = wilson_interval(passes, counted)
        costs = [c.cost_usd for c in own if c.counted]
        durations = [d for c in own for d in c.durations_ms]
        totals.append(
            ModelTotals(
                label=label,
                passes=passes,
                counted=counted,
                low=low,
                high=high,
                cost_usd=None if None in costs else sum((c for c in costs if c is not None), Decimal(0)),
                median_ms=percentile(durations, 50) if durations else None,
            )
        )
    return Matrix(columns=columns, rows=rows, totals=totals)


def experiment_record(
    experiment: Experiment, cells: list[ExperimentCell], *, advisory: dict[str, int] | None = None
) -> dict[str, Any]:
    """An experiment as JSON-safe data: the API's answer, the JSON report, what the CLI reads back. `advisory`:
    runs.experiments.advisory's judges that did not decide (left empty where only the experiment is listed)."""
    matrix = build_matrix(experiment, cells)
    return {
        "id": experiment.pk,
        "name": experiment.name,
        "label": experiment.label,
        "tag": experiment.tag,
        "scenario_ids": experiment.scenario_ids,
        "models": experiment.model_list,
        "variants": experiment.variant_list,
        "trials": experiment.trials,
        "baseline_id": experiment.baseline_id,
        "baseline_pin": experiment.baseline_pin,
        "rerun_inconclusive": experiment.rerun_inconclusive,
        "judges": experiment.judges,
        "advisory_judges": advisory or {},
        "status": experiment.status,
        "progress": {"finished": experiment.finished_runs, "total": experiment.total_runs},
        "created_at": experiment.created_at.isoformat(),
        "finished_at": experiment.finished_at.isoformat() if experiment.finished_at else None,
        "cells": [view.record() for view in matrix.cells],
        "totals": [totals.record() for totals in matrix.totals],
    }
