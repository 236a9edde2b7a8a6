"""The suites API: the published JSON Schema, export, apply (with dry_run) and mcptest import.

Applying creates stdio servers and secret references, which only staff may: it needs a staff account and the
evaluate:admin scope, like registering a stdio server.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from ninja import Field, Query, Router, Schema
from pydantic import StrictBool

from evalhub.api.common import ADMIN, ApiError, ErrorCode, ErrorOut, acting_user, require_admin, responses
from evalhub.api_keys.auth import auth_for
from evalhub.suites.schema import SCHEMA_PATH, suite_schema
from evalhub.suites.sections.scenarios import TAG_PATTERN
from evalhub.suites.services import mcptest_import, suite_apply, suite_export
from evalhub.suites.validation import InvalidSuite

router = Router()
schemas_router = Router()
MAX_SUITE_BYTES = 2_000_000


def schema_url(request: HttpRequest) -> str:
    return request.build_absolute_uri(SCHEMA_PATH)


@schemas_router.get(
    "/suite.json", auth=None, summary="The suite file's JSON Schema", response={200: dict[str, Any], 429: ErrorOut}
)
def get_suite_schema(request: HttpRequest) -> HttpResponse:
    """No authentication: editors fetch it through the `# yaml-language-server: $schema=` line of a suite file."""
    return JsonResponse(suite_schema(schema_url(request)), json_dumps_params={"indent": 2})


@router.get(
    "/export",
    response=responses({200: str}),
    summary="Export a suite file (YAML)",
    openapi_extra={
        # A YAML document whose shape /api/v1/schemas/suite.json describes.
        "responses": {200: {"description": "OK", "content": {"application/yaml": {"schema": {"type": "object"}}}}}
    },
)
def export_suite(
    request: HttpRequest, tag: str = Query("", pattern=f"^$|{TAG_PATTERN}", description="A tag's name.")
) -> HttpResponse:
    """Servers, providers, scorers and scenarios (with `tag`: its scenarios and what they use) as YAML. Secrets
    appear only as `${VAR}` references."""
    text = suite_export(schema_url=schema_url(request), tag=tag)
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="evals.yaml"'
    return response


class ApplyIn(Schema):
    yaml: str = Field(max_length=MAX_SUITE_BYTES, description="The suite file's text.")
    filename: str = Field("suite.yaml", max_length=200, description="Named in error messages.")
    # Strict: pydantic would read 0 and "yes" as booleans, and a JSON true/false is what the schema promises.
    dry_run: StrictBool = Field(False, description="Plan only; change nothing.")
    prune: StrictBool = Field(False, description="Also delete what the file's sections do not list.")


class StepChangeOut(Schema):
    field: str
    before: Any
    after: Any


class StepOut(Schema):
    action: str
    section: str
    name: str
    changes: list[StepChangeOut]


class PlanOut(Schema):
    summary: str
    create: int
    change: int
    delete: int
    steps: list[StepOut]


class ApplyOut(Schema):
    applied: bool
    plan: PlanOut


class McptestIn(Schema):
    yaml: str = Field(max_length=MAX_SUITE_BYTES, description="The mcptest v1 suite's text.")
    filename: str = Field("suite.yaml", max_length=200)
    dry_run: StrictBool = False
    provider: str = Field("EvalHub offline", description="The provider of bare model names.")
    model: str = Field("evalhub-offline", description="The model of tool tests and evals.")


class NoteOut(Schema):
    pointer: str
    status: str
    reason: str


class CountsOut(Schema):
    exact: int = Field(description="Items imported exactly.")
    approximated: int = Field(description="Items imported with a named approximation (see `report`).")
    refused: int = Field(description="Items refused, each with its reason in `report`.")


class McptestOut(ApplyOut):
    report: list[NoteOut]
    counts: CountsOut


def _invalid(error: InvalidSuite) -> ApiError:
    first = error.problems[0]
    return ApiError(
        ErrorCode.VALIDATION_ERROR, str(first), {"problems": [problem.to_dict() for problem in error.problems]}
    )


@router.post("/apply", response=responses({200: ApplyOut}), auth=auth_for(ADMIN), summary="Apply a suite file")
def apply_suite(request: HttpRequest, body: ApplyIn) -> dict[str, Any]:
    """Create or update by name, in one transaction; `dry_run` returns the plan and changes nothing. Errors list
    every problem with its line and JSON pointer (`details.problems`)."""
    require_admin(request, "Applying a suite")
    try:
        plan = suite_apply(
            text=body.yaml, filename=body.filename, user=acting_user(request), prune=body.prune, dry_run=body.dry_run
        )
    except InvalidSuite as error:
        raise _invalid(error) from None
    return {"applied": not body.dry_run, "plan": plan.to_dict()}


@router.post(
    "/import-mcptest", response=responses({200: McptestOut}), auth=auth_for(ADMIN), summary="Import an mcptest suite"
)
def import_mcptest(request: HttpRequest, body: McptestIn) -> dict[str, Any]:
    """Convert an mcptest v1 suite and apply it; `report` lists everything that did not carry over exactly, `counts`
    how many items were imported exactly, approximated or refused. A file mcptest itself refuses (an unknown key, a
    wrong type) is refused with every problem's line and JSON pointer."""
    require_admin(request, "Importing a suite")
    try:
        plan, conversion = mcptest_import(
            text=body.yaml,
            filename=body.filename,
            user=acting_user(request),
            dry_run=body.dry_run,
            provider=body.provider,
            model=body.model,
            schema_url=schema_url(request),
        )
    except InvalidSuite as error:
        raise _invalid(error) from None
    report = [{"pointer": n.pointer, "status": n.status, "reason": n.reason} for n in conversion.notes]
    return {
        "applied": not body.dry_run,
        "plan": plan.to_dict(),
        "report": report,
        "counts": conversion.counts.to_dict(),
    }
