"""The `checkup.*` events on the live stream (runs.events): ids, stages and numbers only, never a finding's text
(what a server answered stays behind the check-up's page, like a run's transcript)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from evalhub.checkups.models import Checkup
from runs.events.models import RunEvent
from runs.events.publish import publish, publish_at_commit


def _event(type_: str, checkup: Checkup, **data: Any) -> RunEvent:
    ids = {"checkup_id": checkup.pk, "server_id": checkup.server_id, "status": checkup.status}
    return RunEvent(type=type_, data={**ids, **data, "timestamp": timezone.now().isoformat()})


def checkup_queued(checkup: Checkup) -> None:
    publish_at_commit([_event("checkup.queued", checkup)])


def checkup_progress(checkup: Checkup) -> None:
    publish([_event("checkup.progress", checkup, **checkup.progress)])


def checkup_finished(checkup: Checkup) -> None:
    publish(
        [
            _event(
                "checkup.finished",
                checkup,
                score=checkup.score,
                passed=checkup.passed,
                counts=checkup.summary.get("counts", {}),
                run_ids=checkup.run_ids,
            )
        ]
    )
