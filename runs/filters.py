"""The Runs list's filters: read from the query string, applied to the queryset, echoed back into the form."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db import connection
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils import timezone

from evalhub.ids import parse_id
from evalhub.scenarios.models import Scenario
from runs.models import Run
from runs.verdict import CAUSES
from runs.verdict.rule import VERDICTS


def _date(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _midnight(day: date) -> datetime:
    """The start of `day` in the current time zone, as `created_at__date` would read it."""
    return timezone.make_aware(datetime.combine(day, time.min))


# A loose index scan: one probe of the `model` index per distinct model, where SELECT DISTINCT reads the whole
# index (100,000 runs of 6 models: 7 probes instead of 100,000 index entries). PostgreSQL and SQLite both run it.
MODELS_USED_SQL = """
WITH RECURSIVE used(model) AS (
    SELECT MIN(model) FROM runs_run
    UNION ALL
    SELECT (SELECT MIN(model) FROM runs_run WHERE model > used.model) FROM used WHERE used.model IS NOT NULL
)
SELECT model FROM used WHERE model IS NOT NULL
"""


def models_used() -> list[str]:
    """The distinct models runs used, sorted."""
    with connection.cursor() as cursor:
        cursor.execute(MODELS_USED_SQL)
        return [row[0] for row in cursor.fetchall()]


@dataclass(frozen=True)
class RunFilters:
    scenario: str = ""
    status: str = ""
    # The older pass/fail filter (links and the API's `passed` still use it); `verdict` also finds inconclusive runs.
    passed: str = ""
    verdict: str = ""
    cause: str = ""
    model: str = ""
    tag: str = ""
    date_from: str = ""
    date_to: str = ""
    # One experiment cell's trials (the experiment matrix links its cells here).
    cell: str = ""

    @classmethod
    def from_query(cls, query: QueryDict) -> RunFilters:
        # NUL characters are dropped: PostgreSQL refuses them in any text it compares.
        return cls(**{name: query.get(name, "").replace("\x00", "").strip() for name in cls.__dataclass_fields__})

    @property
    def active(self) -> bool:
        return any(getattr(self, name) for name in self.__dataclass_fields__)

    def apply(self, runs: QuerySet[Run]) -> QuerySet[Run]:
        if (scenario_id := parse_id(self.scenario)) is not None:
            runs = runs.filter(scenario_id=scenario_id)
        if (cell_id := parse_id(self.cell)) is not None:
            runs = runs.filter(cell_id=cell_id)
        if self.status in Run.Status.values:
            runs = runs.filter(status=self.status)
        if self.passed in ("yes", "no"):
            runs = runs.filter(passed=self.passed == "yes")
        if self.verdict in VERDICTS:
            runs = runs.filter(verdict=self.verdict)
        if self.cause in CAUSES:
            runs = runs.filter(failure_cause=self.cause)
        if self.model:
            runs = runs.filter(model=self.model)
        if self.tag:
            # A subquery, not a join: the planner then reads the runs of those scenarios from the list index.
            runs = runs.filter(scenario_id__in=Scenario.objects.filter(tags__name=self.tag).values("pk"))
        # Ranges on created_at, not created_at__date: a date cast of the column cannot use its index.
        if start := _date(self.date_from):
            runs = runs.filter(created_at__gte=_midnight(start))
        if (end := _date(self.date_to)) and end < date.max:
            runs = runs.filter(created_at__lt=_midnight(end + timedelta(days=1)))
        return runs
