"""A scenario's recent scores as a small server-rendered SVG line chart: no JavaScript, no chart library.

The plot sits inside margins that hold its axes: scores 0, 0.5 and 1 on the left, the pass threshold labelled on
the right, and the first and last runs' dates under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runs.models import Run

WIDTH, HEIGHT = 560, 170
LEFT, RIGHT, TOP, BOTTOM = 40, 64, 12, 30  # margins: score labels, threshold label, headroom, date labels
Y_TICKS = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    run: Run


@dataclass(frozen=True)
class Tick:
    value: float
    y: float


@dataclass(frozen=True)
class Chart:
    points: list[Point]
    polyline: str
    threshold: float
    threshold_y: float
    y_ticks: list[Tick]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    bottom: int = HEIGHT - BOTTOM

    @property
    def first(self) -> Point:
        return self.points[0]

    @property
    def last(self) -> Point:
        return self.points[-1]


def _y(score: float) -> float:
    return round(HEIGHT - BOTTOM - score * (HEIGHT - TOP - BOTTOM), 1)


def score_history_chart(runs: Sequence[Run], *, threshold: float) -> Chart | None:
    """Oldest first. Runs without a score (errors, cancelled, in progress) are left out; None when none remain."""
    scored = [run for run in runs if run.score is not None]
    if not scored:
        return None
    inner = WIDTH - LEFT - RIGHT
    # One run sits in the middle; several spread from the left axis to the right edge of the plot.
    step = inner / (len(scored) - 1) if len(scored) > 1 else 0
    start = LEFT if len(scored) > 1 else LEFT + inner / 2
    points = [Point(round(start + i * step, 1), _y(run.score or 0.0), run) for i, run in enumerate(scored)]
    return Chart(
        points=points,
        polyline=" ".join(f"{p.x},{p.y}" for p in points),
        threshold=threshold,
        threshold_y=_y(threshold),
        y_ticks=[Tick(value, _y(value)) for value in Y_TICKS],
    )
