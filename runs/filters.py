"""The Runs list's filters: read from the query string, applied to the queryset, echoed back into the form."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import QuerySet
from django.http import QueryDict

from runs.models import Run


def _date(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


@dataclass(frozen=True)
class RunFilters:
    scenario: str = ""
    status: str = ""
    passed: str = ""
    model: str = ""
    tag: str = ""
    date_from: str = ""
    date_to: str = ""

    @classmethod
    def from_query(cls, query: QueryDict) -> RunFilters:
        return cls(**{name: query.get(name, "").strip() for name in cls.__dataclass_fields__})

    @property
    def active(self) -> bool:
        return any(getattr(self, name) for name in self.__dataclass_fields__)

    def apply(self, runs: QuerySet[Run]) -> QuerySet[Run]:
        if self.scenario.isdigit():
            runs = runs.filter(scenario_id=int(self.scenario))
        if self.status in Run.Status.values:
            runs = runs.filter(status=self.status)
        if self.passed in ("yes", "no"):
            runs = runs.filter(passed=self.passed == "yes")
        if self.model:
            runs = runs.filter(model=self.model)
        if self.tag:
            runs = runs.filter(scenario__tags__name=self.tag)
        if start := _date(self.date_from):
            runs = runs.filter(created_at__date__gte=start)
        if end := _date(self.date_to):
            runs = runs.filter(created_at__date__lte=end)
        return runs
