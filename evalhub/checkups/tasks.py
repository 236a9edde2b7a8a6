"""The check-up's task: thin, it takes an id (evalhub.checkups.services does the work)."""

from __future__ import annotations

from celery import shared_task

from evalhub.checkups.services import checkup_execute


@shared_task(name="evalhub.execute_checkup")
def execute_checkup(checkup_id: int) -> None:
    checkup_execute(checkup_id=checkup_id)
