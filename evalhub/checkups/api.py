"""/api/v1: check-ups. `POST /servers/{id}/checkup` queues one (202 + id); `GET /checkups/{id}` answers it (its
status while it runs, then the scored report); `GET /checkups/{id}/report` renders it; `GET /checkups/{id}/compare/
{other}` says what got better or worse. Progress also comes as `checkup.*` events on GET /events."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema
from ninja.responses import Status

from evalhub.api.common import WRITE, acting_user, get_or_404, invalid, require_object_body, responses
from evalhub.api_keys.auth import auth_for
from evalhub.checkups import report
from evalhub.checkups.models import Checkup
from evalhub.checkups.services import checkup_compare, checkup_settle, checkup_start
from evalhub.servers.models import McpServer

servers_router = Router()
router = Router()


class CheckupIn(Schema):
    acknowledge_side_effects: bool = Field(
        False, description="Also call destructive-looking tools and run execution-level evals (recorded per server)."
    )
    shipped_evals: bool = Field(True, description="Run the server's shipped evals too (each counts as a run).")


class CheckupQueuedOut(Schema):
    id: int
    status: str
    url: str = Field(description="GET it for the check-up's state and, once finished, its report.")


class CheckupOut(Schema):
    id: int
    server_id: int
    server_name: str
    status: str = Field(description="queued, running, waiting (for the shipped evals' runs) or finished.")
    verdict: str = Field(description="PASS or FAIL once finished (FAIL: any error finding), else the status.")
    score: float | None = Field(description="Mean of the section scores, 0-1.")
    passed: bool | None
    sections: dict[str, Any] = Field(description="Per section that ran: title, score, counts.")
    counts: dict[str, int]
    findings: list[dict[str, Any]] = Field(
        description="section, severity, code, message, recommendation, subject, field, evidence."
    )
    run_ids: list[int] = Field(description="The runs of the shipped evals it started.")
    progress: dict[str, Any]
    error: dict[str, Any] | None
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    duration_ms: int | None
    server: dict[str, Any] | None = Field(description="Who answered: name, version, protocol_version, capabilities.")


class ReportParams(Schema):
    format: Literal["json", "markdown", "junit", "html"] = "json"


@servers_router.post(
    "/{int:server_id}/checkup",
    response=responses({202: CheckupQueuedOut}, 400, 403, 404, 429),
    auth=auth_for(WRITE),
    summary="Check up a server",
)
def start_checkup(request: HttpRequest, server_id: int, payload: CheckupIn | None = None) -> Status:
    """Queue a check-up: static quality, protocol compliance, a runtime sweep of every tool, resource and prompt,
    and the server's shipped evals. The first three count as one run of the daily quota; the shipped evals' runs
    are admitted whole or not at all. 429 QUOTA_EXCEEDED when no run is left today."""
    require_object_body(request, '{"shipped_evals": false}')
    server = get_or_404(McpServer.objects.all(), "Server", server_id)
    checkup = checkup_start(
        server=server,
        user=acting_user(request),
        acknowledge_side_effects=payload.acknowledge_side_effects if payload else False,
        shipped_evals=payload.shipped_evals if payload else True,
    )
    return Status(202, {"id": checkup.pk, "status": checkup.status, "url": f"/api/v1/checkups/{checkup.pk}"})


def _get(checkup_id: int) -> Checkup:
    return checkup_settle(checkup=get_or_404(Checkup.objects.select_related("server"), "Check-up", checkup_id))


@router.get("/{int:checkup_id}", response=responses({200: CheckupOut}, 404), summary="A check-up")
def get_checkup(request: HttpRequest, checkup_id: int) -> dict[str, Any]:
    return _get(checkup_id).to_dict()


@router.get("/{int:checkup_id}/report", response=responses({200: None}, 404), summary="A check-up's report")
def checkup_report(request: HttpRequest, checkup_id: int, params: Query[ReportParams]) -> HttpResponse:
    """The check-up as JSON, Markdown, JUnit XML (one test case per finding; errors are failures) or HTML."""
    checkup = _get(checkup_id)
    return report.render(checkup.to_dict(), params.format).response(f"checkup-{checkup.pk}")


@router.get("/{int:checkup_id}/compare/{int:other_id}", response=responses({200: dict}, 404, 400), summary="Compare")
def compare_checkups(request: HttpRequest, checkup_id: int, other_id: int) -> dict[str, Any]:
    """What changed from check-up `other_id` (before) to `checkup_id` (after) of the same server: findings fixed,
    new, better (lower severity) and worse, and the change of score."""
    after, before = _get(checkup_id), _get(other_id)
    try:
        return checkup_compare(before=before, after=after)
    except ValueError as exc:
        raise invalid(str(exc), field="other_id") from None
