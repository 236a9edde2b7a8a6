"""Each variant of an experiment against the server as it is, cell by cell: the same comparison as between two
experiments (runs.experiments.compare: Fisher's exact test on decided trials, regressed / fixed / unchanged), with
a variant's cell matched to the as-served cell of the same scenario, model and tool mode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runs.experiments.compare import Comparison, compare_experiments
from runs.experiments.models import Experiment, ExperimentCell
from runs.variants.surface import BASELINE


def _same_column(cell: ExperimentCell) -> tuple[int | None, str, str]:
    return (cell.scenario_id, cell.model, cell.tool_mode)


@dataclass(frozen=True)
class VariantComparison:
    variant: str
    comparison: Comparison


def variant_comparisons(experiment: Experiment, cells: list[ExperimentCell]) -> list[VariantComparison]:
    """One comparison per variant of `experiment`, in the order they were given; none without variants."""
    served = [cell for cell in cells if cell.variant == BASELINE]
    return [
        VariantComparison(
            name,
            compare_experiments(
                candidate=experiment,
                baseline=experiment,
                candidate_cells=[cell for cell in cells if cell.variant == name],
                baseline_cells=served,
                key=_same_column,
            ),
        )
        for name in (str(variant["name"]) for variant in experiment.variant_list)
    ]


def variant_records(experiment: Experiment, cells: list[ExperimentCell]) -> list[dict[str, Any]]:
    """The comparisons as the API and the CLI read them."""
    return [{"variant": v.variant, **v.comparison.record()} for v in variant_comparisons(experiment, cells)]
