"""The tool statistics of an experiment, a scenario and a server, from their runs (runs.tool_usage's pure modules
do the counting). Each reads only the fields the statistics need, in one query, capped to the latest runs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.db.models import QuerySet

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer, ToolSnapshot
from runs.experiments.matrix import column_label
from runs.experiments.models import Experiment
from runs.models import Run
from runs.tool_usage.confusion import Confusion, confusion_matrix
from runs.tool_usage.facts import RunFacts, run_facts
from runs.tool_usage.stats import ToolStats, never_called, tool_stats

# A server's page reads at most this many of its latest runs: enough for stable rates, bounded in time.
SERVER_RUNS = 2000
SCENARIO_RUNS = 500
_FIELDS = ("pk", "scenario__name", "settings", "all_tool_calls", "tool_snapshot__tools", "cell__column", "created_at")


def _facts(runs: QuerySet[Run], columns: list[str] | None = None) -> Iterable[tuple[RunFacts, date]]:
    decided = runs.filter(status__in=(Run.Status.DONE, Run.Status.ERROR))
    for pk, scenario, settings, calls, tools, column, created in decided.values_list(*_FIELDS).iterator(chunk_size=200):
        yield (
            run_facts(
                run_id=pk,
                scenario=scenario or "(deleted scenario)",
                expected_tools=settings.get("expected_tools") or [],
                all_tool_calls=calls or [],
                snapshot_tools=tools or [],
                column=columns[column] if columns is not None and column is not None else "",
            ),
            created.date(),
        )


@dataclass(frozen=True)
class ColumnConfusion:
    column: str
    confusion: Confusion


@dataclass(frozen=True)
class ToolUsage:
    tools: list[ToolStats]
    never_called: list[str]
    runs: int


def _usage(facts: list[RunFacts], snapshot: ToolSnapshot | None) -> ToolUsage:
    names = snapshot.tool_names if snapshot else []
    return ToolUsage(tools=tool_stats(facts, names), never_called=never_called(facts, names), runs=len(facts))


def experiment_tool_usage(experiment: Experiment) -> tuple[list[ColumnConfusion], ToolUsage]:
    """A confusion matrix per column of the matrix (a model, mode or variant), and the per-tool figures and
    coverage over all of its trials (against the latest tool snapshot of its first scenario's server)."""
    names = [model for model, _ in dict.fromkeys((str(c["model"]), str(c["provider"])) for c in experiment.model_list)]
    duplicates = {name for name in names if names.count(name) > 1}
    columns = [column_label(choice, duplicates) for choice in experiment.model_list]
    facts = [fact for fact, _ in _facts(Run.objects.filter(experiment=experiment).order_by("pk"), columns)]
    confusions = [
        ColumnConfusion(column, confusion_matrix(fact for fact in facts if fact.column == column)) for column in columns
    ]
    scenario = Scenario.objects.filter(pk__in=experiment.scenario_ids).select_related("server").first()
    return confusions, _usage(facts, scenario.server.latest_snapshot() if scenario else None)


def scenario_confusion_by_day(scenario: Scenario) -> list[tuple[date, Confusion]]:
    """The scenario's confusion matrix per day it ran, newest first, over its latest runs."""
    latest = Run.objects.filter(scenario=scenario).order_by("-created_at", "-pk")[:SCENARIO_RUNS]
    by_day: dict[date, list[RunFacts]] = {}
    for fact, day in _facts(Run.objects.filter(pk__in=latest.values("pk")).order_by("-created_at", "-pk")):
        by_day.setdefault(day, []).append(fact)
    return [(day, confusion_matrix(facts)) for day, facts in by_day.items() if any(f.expected for f in facts)]


def server_tool_usage(server: McpServer) -> ToolUsage:
    """Per tool across the server's latest runs (all scenarios, models and variants)."""
    latest = Run.objects.filter(server=server).order_by("-created_at", "-pk")[:SERVER_RUNS]
    facts = [fact for fact, _ in _facts(Run.objects.filter(pk__in=latest.values("pk")))]
    return _usage(facts, server.latest_snapshot())
