"""/scenarios: create and edit them through the same ScenarioForm the UI uses, and start runs of them."""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Query, Router
from ninja.responses import Status

from evalhub.api.common import (
    WRITE,
    ApiError,
    ErrorCode,
    Page,
    PageParams,
    acting_user,
    form_errors,
    get_or_404,
    invalid,
    paginate,
    patched,
    require_object_body,
    responses,
)
from evalhub.api_keys.auth import auth_for
from evalhub.permissions import require_change
from evalhub.providers.models import Provider, ensure_builtin_providers
from evalhub.scenarios.forms import ScenarioForm
from evalhub.scenarios.models import Scenario
from evalhub.scenarios.schemas import (
    RunStartIn,
    ScenarioFilters,
    ScenarioIn,
    ScenarioOut,
    ScenarioPatch,
)
from evalhub.scenarios.services import scenario_duplicate
from runs.api import RunSummaryOut
from runs.reports import run_summary
from runs.run_choices import RunChoices
from runs.services import run_start
from scorers.attachments import attach_scorers, attachments_of
from scorers.expectations import EXPECTATIONS_JSON_SCHEMA

router = Router()


def _expectations_components() -> dict[str, Any]:
    """EXPECTATIONS_JSON_SCHEMA as OpenAPI components: its `$defs` become components of their own, since a
    `#/$defs/…` reference inside the OpenAPI document would point at the document's root."""
    defs = EXPECTATIONS_JSON_SCHEMA["$defs"]
    names = {name: "Expectations" + name[0].upper() + name[1:] for name in defs}
    text = json.dumps({key: value for key, value in EXPECTATIONS_JSON_SCHEMA.items() if key != "$schema"})
    for name, component in names.items():
        text = text.replace(f'"#/$defs/{name}"', f'"#/components/schemas/{component}"')
    schema = json.loads(text)
    return {"Expectations": schema, **{names[name]: definition for name, definition in schema.pop("$defs").items()}}


# Merged into the OpenAPI document's components by evalhub.api.
OPENAPI_COMPONENTS = _expectations_components()

# API field → ScenarioForm field, to put the form's errors where the client's fields are.
FORM_FIELDS = {
    "server": "server_id",
    "model_choice": "model",
    "expected_tools_text": "expected_tools",
    "tags_text": "tags",
    "scorers": "scorer_ids",
    "advisory_scorers": "scorers",
    "primitive_target": "primitive",
    "primitive_arguments": "primitive",
}


def scenario_out(scenario: Scenario) -> dict[str, Any]:
    return {
        "id": scenario.pk,
        "name": scenario.name,
        "description": scenario.description,
        "prompt": scenario.prompt,
        "system_prompt": scenario.system_prompt,
        "server_id": scenario.server_id,
        "server_name": scenario.server.name,
        "provider_id": scenario.provider_id,
        "provider_name": scenario.provider.name,
        "model": scenario.model,
        "expected_tools": list(scenario.expected_tools),
        "expected": scenario.expected,
        "expectations": list(scenario.expectations),
        "conversation": dict(scenario.conversation),
        "fault_injection": dict(scenario.fault_injection),
        "tags": [tag.name for tag in scenario.tags.all()],
        "scorer_ids": [scorer.pk for scorer in scenario.scorers.all()],
        "scorers": [
            {"id": a.scorer_id, "name": a.scorer.name, "advisory": a.advisory, "threshold": a.threshold}
            for a in attachments_of(scenario)
        ],
        "pass_threshold": scenario.pass_threshold,
        "tool_errors_expected": scenario.tool_errors_expected,
        "tool_mode": scenario.tool_mode,
        "level": scenario.level,
        "tool_call": scenario.tool_call,
        "primitive": scenario.primitive,
        "shipped_eval_id": scenario.shipped_eval_id,
        "max_turns": scenario.max_turns,
        "max_tool_calls": scenario.max_tool_calls,
        "time_limit_seconds": scenario.time_limit_seconds,
        "max_tokens": scenario.max_tokens,
        "token_budget": scenario.token_budget,
        "cost_budget_usd": float(scenario.cost_budget_usd) if scenario.cost_budget_usd is not None else None,
        "warnings": [f"{scenario.server.name} does not offer {name}." for name in scenario.unknown_expected_tools()],
        "created_at": scenario.created_at,
        "updated_at": scenario.updated_at,
    }


def _queryset() -> QuerySet[Scenario]:
    return Scenario.objects.select_related("server", "provider").prefetch_related("tags", "scorers")


def _get(scenario_id: int) -> Scenario:
    return get_or_404(_queryset(), "Scenario", scenario_id)


def _form_data(values: dict[str, Any]) -> dict[str, Any]:
    """The API's JSON fields as the ScenarioForm's POST data."""
    attachments = values.get("scorers")
    for field in ("expected_tools", "tags"):
        bad = [item for item in values[field] if "," in item or "\n" in item]
        if bad:
            raise invalid(f"{field} items are single names without commas or line breaks: {bad[0]!r}.", field=field)
    provider_id = values.get("provider_id")
    if provider_id is None:
        ensure_builtin_providers()
        provider = next((p for p in Provider.objects.all() if values["model"] in p.model_names), None)
        provider_id = provider.pk if provider else 0
    return {
        "name": values["name"],
        "description": values["description"],
        "server": values["server_id"],
        "model_choice": f"{provider_id}:{values['model']}",
        "prompt": values["prompt"],
        "system_prompt": values["system_prompt"],
        "expected_tools_text": "\n".join(values["expected_tools"]),
        "expected": "" if values["expected"] is None else json.dumps(values["expected"]),
        "expectations": json.dumps(values["expectations"]),
        "conversation": "" if values["conversation"] is None else json.dumps(values["conversation"]),
        "fault_injection": "" if values["fault_injection"] is None else json.dumps(values["fault_injection"]),
        "tags_text": ", ".join(values["tags"]),
        "scorers": [a["id"] for a in attachments] if attachments is not None else values["scorer_ids"],
        "advisory_scorers": [a["id"] for a in attachments or () if a["advisory"]],
        "pass_threshold": values["pass_threshold"],
        "tool_errors_expected": values["tool_errors_expected"],
        "tool_mode": values["tool_mode"],
        "level": values["level"],
        **_primitive_fields(values),
        "max_turns": values["max_turns"],
        "max_tool_calls": values["max_tool_calls"],
        "time_limit_seconds": values["time_limit_seconds"],
        "max_tokens": values["max_tokens"],
        "token_budget": "" if values["token_budget"] is None else values["token_budget"],
        "cost_budget_usd": "" if values["cost_budget_usd"] is None else values["cost_budget_usd"],
    }


def _primitive_fields(values: dict[str, Any]) -> dict[str, Any]:
    """`primitive` as the form's target and arguments fields."""
    request = values.get("primitive")
    if request is None:
        return {"primitive_target": "", "primitive_arguments": ""}
    target = request.get("uri") or request.get("template") or request.get("name") or ""
    if not isinstance(target, str):
        raise invalid("primitive: uri, template or name is a string.", field="primitive")
    arguments = request.get("arguments")
    return {"primitive_target": target, "primitive_arguments": "" if arguments is None else json.dumps(arguments)}


def _save(values: dict[str, Any], instance: Scenario | None, request: HttpRequest) -> Scenario:
    form = ScenarioForm(_form_data(values), instance=instance)
    if not form.is_valid():
        raise form_errors(form, FORM_FIELDS)
    with transaction.atomic():
        scenario = form.save(commit=False)
        if instance is None:
            user = acting_user(request)
            scenario.created_by = user if user.is_authenticated else None  # type: ignore[assignment]
        scenario.save()
        form.instance = scenario
        form.save()
        if values.get("scorers") is not None:
            # The form has no threshold fields: the API's own thresholds are set after it.
            thresholds = {a["id"]: a["threshold"] for a in values["scorers"]}
            attach_scorers(
                scenario=scenario,
                scorers=form.cleaned_data["scorers"],
                advisory={a["id"] for a in values["scorers"] if a["advisory"]},
                thresholds=thresholds,
            )
    return _get(scenario.pk)


@router.get("", response=responses({200: Page[ScenarioOut]}), summary="List scenarios")
def list_scenarios(request: HttpRequest, filters: Query[ScenarioFilters], page: Query[PageParams]) -> dict[str, Any]:
    scenarios = _queryset()
    if filters.tag:
        scenarios = scenarios.filter(tags__name=filters.tag.strip().lower())
    if filters.server_id is not None:
        scenarios = scenarios.filter(server_id=filters.server_id)
    if filters.name:
        scenarios = scenarios.filter(name=filters.name)
    if filters.q:
        scenarios = scenarios.filter(name__icontains=filters.q)
    return paginate(scenarios.order_by("name", "pk"), page, out=scenario_out)


@router.post("", response=responses({201: ScenarioOut}), auth=auth_for(WRITE), summary="Create a scenario")
def create_scenario(request: HttpRequest, payload: ScenarioIn) -> Status:
    return Status(201, scenario_out(_save(payload.dict(), None, request)))


@router.get("/{int:scenario_id}", response=responses({200: ScenarioOut}, 404), summary="Get a scenario")
def get_scenario(request: HttpRequest, scenario_id: int) -> dict[str, Any]:
    return scenario_out(_get(scenario_id))


@router.patch(
    "/{int:scenario_id}", response=responses({200: ScenarioOut}, 404), auth=auth_for(WRITE), summary="Update a scenario"
)
def update_scenario(request: HttpRequest, scenario_id: int, payload: ScenarioPatch) -> dict[str, Any]:
    """Its creator or staff only."""
    scenario = _get(scenario_id)
    require_change(acting_user(request), scenario)
    changes = payload.dict(exclude_unset=True)
    values = patched(
        scenario_out(scenario),
        changes,
        nullable=("expected", "expectations", "conversation", "fault_injection", "token_budget", "cost_budget_usd"),
    )
    if "scorer_ids" in changes and "scorers" not in changes:
        values["scorers"] = None  # scorer_ids alone: those scorers, gating (as before attachments had settings)
    if "model" in changes and "provider_id" not in changes:
        values["provider_id"] = None  # A new model may live at another provider: find it again.
    return scenario_out(_save(values, scenario, request))


@router.delete(
    "/{int:scenario_id}", response=responses({204: None}, 404), auth=auth_for(WRITE), summary="Delete a scenario"
)
def delete_scenario(request: HttpRequest, scenario_id: int) -> Status:
    """Its creator or staff only. Deletes its runs too, as the UI does."""
    scenario = _get(scenario_id)
    require_change(acting_user(request), scenario)
    scenario.delete()
    return Status(204, None)


@router.post(
    "/{int:scenario_id}/duplicate",
    response=responses({201: ScenarioOut}, 404),
    auth=auth_for(WRITE),
    summary="Duplicate a scenario",
)
def duplicate_scenario(request: HttpRequest, scenario_id: int) -> Status:
    copy = scenario_duplicate(scenario=_get(scenario_id), user=acting_user(request))
    return Status(201, scenario_out(_get(copy.pk)))


@router.post(
    "/{int:scenario_id}/runs",
    response=responses({201: RunSummaryOut}, 404),
    auth=auth_for(WRITE),
    summary="Start a run",
)
def start_run(request: HttpRequest, scenario_id: int, payload: RunStartIn | None = None) -> Status:
    """Queue one run (429 QUOTA_EXCEEDED when today's quota is used up). `model` overrides the scenario's model."""
    require_object_body(request, '{"model": "gpt-4o"}')
    scenario = _get(scenario_id)
    model = (payload.model or "").strip() if payload else ""
    served = list(scenario.provider.model_names)
    if model and model not in served:
        raise ApiError(
            ErrorCode.VALIDATION_ERROR,
            f"{scenario.provider.name} does not serve {model!r}; choose one of: {', '.join(served)}.",
            {"field": "model", "models": list(scenario.provider.model_names)},
        )
    run = run_start(scenario=scenario, user=acting_user(request), choices=RunChoices(model=model))
    run.scenario = scenario
    return Status(201, run_summary(run))
