"""Health checks for /health: is the database answering, is the broker reachable, when did a worker last run?

Nothing here may reveal configuration: no URLs, hosts or credentials, only statuses and timings.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import connection

from evalhub import __version__
from evalhub.celery import app as celery_app
from evalhub.models import WorkerHeartbeat

BROKER_TIMEOUT_SECONDS = 2
# When this process started serving (this module is imported as the URLconf loads): uptime is per process.
_STARTED = time.monotonic()


def uptime_seconds() -> float:
    return round(time.monotonic() - _STARTED, 1)


def _timed(check: Any) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        details = check() or {}
    except Exception as exc:  # A health check reports every failure instead of raising it.
        return {"status": "error", "error": type(exc).__name__}
    return {"status": "ok", "latency_ms": round((time.perf_counter() - started) * 1000, 1), **details}


def check_database() -> dict[str, Any]:
    def ping() -> dict[str, str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"engine": connection.vendor}

    return _timed(ping)


def check_broker() -> dict[str, Any]:
    def ping() -> dict[str, str]:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
            return {"transport": conn.transport.driver_name}

    return _timed(ping)


def worker_status() -> dict[str, Any]:
    beat = WorkerHeartbeat.latest()
    if beat is None:
        return {"status": "unknown", "last_seen": None}
    return {"status": "ok" if beat.is_recent() else "stale", "last_seen": beat.last_seen.isoformat()}


def health_report() -> dict[str, Any]:
    checks = {"database": check_database(), "broker": check_broker()}
    healthy = all(check["status"] == "ok" for check in checks.values())
    # The worker is reported but does not decide health: a dashboard with an idle worker is still usable.
    return {
        "status": "ok" if healthy else "error",
        "version": __version__,
        "uptime_seconds": uptime_seconds(),
        "checks": checks,
        "worker": worker_status(),
    }
