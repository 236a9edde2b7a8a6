"""The worker's housekeeping: close runs of dead workers, kill servers they left, and say the worker is alive.

Each worker does it on its own schedule, from a thread its `worker_ready` signal starts (runs/tasks.py), so
nobody has to run Celery beat beside `make run` or the production worker. Why a thread rather than beat (or a
periodic task): a periodic task waits in the queue behind runs (a worker with every slot busy on long runs would
reap nothing for minutes), and an embedded beat (`-B`) needs a schedule file and must run in exactly one worker.
Everything done here is idempotent and conditional, so several workers doing it at once is harmless.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime

from django.db import connection

from evalhub.mcp_client import leftovers
from evalhub.models import WorkerHeartbeat
from runs import heartbeat

logger = logging.getLogger(__name__)

# As often as runs beat: a dead worker's runs are closed at most STALE_AFTER + EVERY_SECONDS after its last beat.
EVERY_SECONDS = heartbeat.BEAT_SECONDS


def worker_started(*, hostname: str, started_at: datetime) -> None:
    """Once, before the worker takes its first task: close what a predecessor of the same name left running.

    A worker restarted within STALE_AFTER of a crash would otherwise leave those runs "running" until they went
    stale (the crashed task's message waits in the broker for its visibility timeout, and is skipped then).
    """
    try:
        if closed := heartbeat.runs_reap_orphans(worker=hostname, started_at=started_at):
            logger.warning("Closed %s run(s) that %s was running when it stopped.", closed, hostname)
        housekeep(hostname=hostname)
    except Exception:
        # The database may be down at start-up; the worker still starts, and its schedule reaps them once stale.
        logger.exception("Worker start-up housekeeping failed.")
    finally:
        # Prefork pool processes are forked from this process later: they must not inherit its connection.
        connection.close()


def housekeep(*, hostname: str) -> None:
    """One round: record that this worker is alive (for /health), reap stale runs, kill leftover servers."""
    WorkerHeartbeat.record(hostname)
    if reaped := heartbeat.runs_reap_stale():
        logger.warning("Closed %s run(s) whose worker stopped beating.", reaped)
    for group in leftovers.kill_leftovers():
        logger.warning("Killed stdio server group %s (%s) left by a dead process.", group.pgid, group.command)


def start(*, hostname: str) -> None:
    """Housekeep every EVERY_SECONDS from a daemon thread, for as long as the worker process lives."""

    def loop() -> None:
        while True:
            time.sleep(EVERY_SECONDS)
            try:
                housekeep(hostname=hostname)
            except Exception:
                # The database may be down for a while; the next round tries again.
                logger.exception("Worker housekeeping failed; retrying in %s s.", EVERY_SECONDS)
            finally:
                connection.close()

    threading.Thread(target=loop, name="evalhub-housekeeping", daemon=True).start()
