"""A scenario's recent scores as a small server-rendered SVG line chart: no JavaScript, no chart library."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runs.models import Run

WIDTH, HEIGHT, PAD = 560, 140, 14


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    run: Run


@dataclass(frozen=True)
class Chart:
    points: list[Point]
    polyline: str
    threshold_y: float
    width: int = WIDTH
    height: int = HEIGHT


def _y(score: float) -> float:
    return round(HEIGHT - PAD - score * (HEIGHT - 2 * PAD), 1)


def score_history_chart(runs: Sequence[Run], *, threshold: float) -> Chart | None:
    """Oldest first. Runs without a score (errors, cancelled, in progress) are left out; None when none remain."""
    scored = [run for run in runs if run.score is not None]
    if not scored:
        return None
    step = (WIDTH - 2 * PAD) / max(len(scored) - 1, 1)
    points = [Point(round(PAD + i * step, 1), _y(run.score or 0.0), run) for i, run in enumerate(scored)]
    return Chart(
        points=points,
        polyline=" ".join(f"{p.x},{p.y}" for p in points),
        threshold_y=_y(threshold),
    )
