"""A scenario's recent scores as a small server-rendered SVG line chart: no JavaScript, no chart library.

The plot sits inside margins that hold its axes: scores 0, 0.5 and 1 on the left, the pass threshold labelled on
the right, and the first and last runs' dates under it. Inconclusive runs decided nothing, so they are not points on
the score line (a low score there would read as a failure): they sit in a lane of their own above the plot, at
their place in time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runs.models import Run

WIDTH, HEIGHT = 560, 170
LEFT, RIGHT, TOP, BOTTOM = 40, 64, 12, 30  # margins: score labels, threshold label, headroom, date labels
Y_TICKS = (0.0, 0.5, 1.0)
LANE = 22  # room above the plot for the inconclusive lane, added only when there is an inconclusive run


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    run: Run
    inconclusive: bool = False


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
    lane_y: float | None = None  # the inconclusive lane's height, when there is one
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


def _y(score: float, height: int) -> float:
    return round(height - BOTTOM - score * (HEIGHT - TOP - BOTTOM), 1)


def score_history_chart(runs: Sequence[Run], *, threshold: float) -> Chart | None:
    """Oldest first. Runs with a score, and inconclusive runs (in their lane, with or without one); runs in
    progress, cancelled or ended without a score and a verdict that decided are left out. None when none remain."""
    shown = [run for run in runs if run.score is not None or run.verdict == "inconclusive"]
    if not shown:
        return None
    lane = any(run.verdict == "inconclusive" for run in shown)
    height = HEIGHT + (LANE if lane else 0)
    lane_y = TOP + LANE / 2 if lane else None
    inner = WIDTH - LEFT - RIGHT
    # One run sits in the middle; several spread from the left axis to the right edge of the plot.
    step = inner / (len(shown) - 1) if len(shown) > 1 else 0
    start = LEFT if len(shown) > 1 else LEFT + inner / 2
    points = [
        Point(round(start + i * step, 1), lane_y, run, inconclusive=True)
        if lane_y is not None and run.verdict == "inconclusive"
        else Point(round(start + i * step, 1), _y(run.score or 0.0, height), run)
        for i, run in enumerate(shown)
    ]
    return Chart(
        points=points,
        polyline=" ".join(f"{p.x},{p.y}" for p in points if not p.inconclusive),
        threshold=threshold,
        threshold_y=_y(threshold, height),
        y_ticks=[Tick(value, _y(value, height)) for value in Y_TICKS],
        lane_y=lane_y,
        height=height,
        bottom=height - BOTTOM,
    )
