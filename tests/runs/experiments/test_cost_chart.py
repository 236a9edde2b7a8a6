"""The "pass rate against cost per trial" chart: its points' labels never overlap."""

from __future__ import annotations

from decimal import Decimal

from runs.experiments.matrix import CHART_BOTTOM, CHART_TOP, Matrix, ModelTotals


def totals(label: str, passes: int, cost: str) -> ModelTotals:
    return ModelTotals(label, passes, 4, 0.0, 1.0, Decimal(cost), None)


def label_rows(*models: ModelTotals) -> list[float]:
    return [point.label_y for point in Matrix(columns=[], rows=[], totals=list(models)).chart().points]


class CostChartLabelTests:
    def test_two_models_scoring_the_same_at_the_same_cost_get_a_line_each(self) -> None:
        first, second = label_rows(totals("evalhub-offline", 2, "0"), totals("evalhub-offline (Other)", 2, "0"))

        assert abs(first - second) >= 13

    def test_labels_of_models_at_the_bottom_stack_upwards_inside_the_chart(self) -> None:
        rows = label_rows(*(totals(f"model-{n}", 0, "0") for n in range(3)))

        assert len(set(rows)) == 3 and all(CHART_TOP < row <= CHART_BOTTOM + 4 for row in rows)

    def test_models_far_apart_keep_their_labels_beside_their_points(self) -> None:
        cheap, dear = Matrix(columns=[], rows=[], totals=[totals("a", 2, "0"), totals("b", 2, "4")]).chart().points

        assert cheap.label_y == dear.label_y == cheap.y + 4
