"""A review queue: the runs a filter selects, sampled (runs.reviews.sampling), kept in the reviewer's session.

The session, not the database: a queue is one person's sitting, and its order must not change under them while
they review (a "not yet reviewed by me" filter would otherwise shrink as they answer).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils import timezone

from evalhub.ids import parse_id
from evalhub.scenarios.models import Scenario
from runs.models import Review, Run, ScoreResult
from runs.reviews.sampling import stratified_sample

DEFAULT_SIZE, MAX_SIZE = 20, 200
AUTO_VERDICTS = ("pass", "fail", "inconclusive")
SESSION_KEY = "review_queues"
KEPT_QUEUES = 5


def _date(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip()) if value and value.strip() else None
    except ValueError:
        return None


@dataclass
class QueueFilter:
    """What the Review page's form and the export read; bad values are dropped and `errors` says which."""

    experiment: int | None = None
    tag: str = ""
    scenario: int | None = None
    scorer: int | None = None
    date_from: date | None = None
    date_to: date | None = None
    auto_verdict: str = ""
    unreviewed_by_me: bool = False
    size: int = DEFAULT_SIZE
    blind: bool = True
    errors: list[str] = field(default_factory=list)

    @classmethod
    def from_query(cls, query: QueryDict, *, submitted: bool) -> QueueFilter:
        found = cls(
            experiment=parse_id(query.get("experiment", "")),
            tag=query.get("tag", "").strip().lower()[:50],
            scenario=parse_id(query.get("scenario", "")),
            scorer=parse_id(query.get("scorer", "")),
            date_from=_date(query.get("from", "")),
            date_to=_date(query.get("to", "")),
            auto_verdict=query.get("auto_verdict", "") if query.get("auto_verdict") in AUTO_VERDICTS else "",
            unreviewed_by_me=query.get("unreviewed") == "1",
            # An unchecked box sends nothing: once the form was submitted, a missing "blind" means off.
            blind=query.get("blind") == "1" if submitted else True,
        )
        for name, label in (("from", "From"), ("to", "To")):
            typed = query.get(name, "")
            if typed.strip() and _date(typed) is None:
                found.errors.append(f"{label}: “{typed}” is not a date; use YYYY-MM-DD.")
        size = query.get("size", "").strip()
        if size:
            if size.isdigit() and 1 <= int(size) <= MAX_SIZE:
                found.size = int(size)
            else:
                found.errors.append(f"Runs: “{size}” is not a number from 1 to {MAX_SIZE}.")
        return found

    def apply(self, runs: QuerySet[Run], *, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Run]:
        """Finished runs with an automatic verdict (nothing else can be reviewed) that match the filter."""
        runs = runs.filter(status__in=Run.FINISHED).exclude(auto_verdict="")
        if self.experiment:
            runs = runs.filter(experiment_id=self.experiment)
        if self.tag:
            runs = runs.filter(scenario_id__in=Scenario.objects.filter(tags__name=self.tag).values("pk"))
        if self.scenario:
            runs = runs.filter(scenario_id=self.scenario)
        if self.scorer:
            scored = ScoreResult.objects.filter(scorer_id=self.scorer, is_current=True).values("run_id")
            runs = runs.filter(pk__in=scored)
        if self.date_from:
            runs = runs.filter(created_at__gte=_start(self.date_from))
        if self.date_to:
            runs = runs.filter(created_at__lt=_start(self.date_to) + timedelta(days=1))
        if self.auto_verdict:
            runs = runs.filter(auto_verdict=self.auto_verdict)
        if self.unreviewed_by_me and user.pk is not None:
            runs = runs.exclude(pk__in=Review.objects.filter(reviewer_id=user.pk).values("run_id"))
        return runs

    def described(self) -> str:
        parts = [
            f"experiment #{self.experiment}" if self.experiment else "",
            f"#{self.tag}" if self.tag else "",
            f"scenario #{self.scenario}" if self.scenario else "",
            f"scorer #{self.scorer}" if self.scorer else "",
            f"from {self.date_from}" if self.date_from else "",
            f"to {self.date_to}" if self.date_to else "",
            f"automatic verdict {self.auto_verdict}" if self.auto_verdict else "",
            "not yet reviewed by me" if self.unreviewed_by_me else "",
        ]
        return ", ".join(part for part in parts if part) or "all finished runs"


def _start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


@dataclass
class Queue:
    token: str
    run_ids: list[int]
    blind: bool
    described: str
    available: int  # how many runs the filter matched before sampling

    def as_session(self) -> dict[str, Any]:
        return asdict(self)


def queue_build(*, queue_filter: QueueFilter, user: AbstractBaseUser | AnonymousUser, session: Any) -> Queue:
    """Sample the filter's runs and keep the queue in the session (the last few queues are kept)."""
    rows = list(queue_filter.apply(Run.objects.all(), user=user).values_list("pk", "auto_verdict"))
    token = secrets.token_urlsafe(8)
    seed = int.from_bytes(secrets.token_bytes(4), "big")
    queue = Queue(
        token=token,
        run_ids=stratified_sample(rows, queue_filter.size, seed=seed),
        blind=queue_filter.blind,
        described=queue_filter.described(),
        available=len(rows),
    )
    queues = {**session.get(SESSION_KEY, {}), token: queue.as_session()}
    session[SESSION_KEY] = dict(list(queues.items())[-KEPT_QUEUES:])
    return queue


def queue_load(*, session: Any, token: str) -> Queue | None:
    stored = session.get(SESSION_KEY, {}).get(token)
    return Queue(**stored) if stored else None
