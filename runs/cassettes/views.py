"""The run page's Replay buttons and the transcript inspector's "Fork from here" form."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from runs.cassettes.services import ReplayRefused, run_fork, run_replay
from runs.models import Run
from runs.quota import QuotaExceeded


@require_POST
def run_replay_view(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run, pk=run_id)
    try:
        replay = run_replay(run=run, user=request.user, mcp=request.POST.get("mcp", "cassette"))
    except (ReplayRefused, QuotaExceeded) as exc:
        messages.error(request, str(exc))
        return redirect("runs:detail", run_id=run.pk)
    return redirect("runs:detail", run_id=replay.pk)


@require_POST
def run_fork_view(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("provider"), pk=run_id)
    try:
        at_step = int(request.POST.get("at_step", ""))
        fork = run_fork(run=run, user=request.user, at_step=at_step, change=change_from_form(request.POST))
    except (ValueError, QuotaExceeded) as exc:
        # ReplayRefused is a ValueError: its message names the field.
        messages.error(request, f"Could not fork run #{run.pk}: {exc}")
        return redirect("runs:detail", run_id=run.pk)
    return redirect("runs:detail", run_id=fork.pk)


def change_from_form(form: QueryDict) -> dict[str, Any]:
    """The fork form's fields as the API's `change` (runs.cassettes.fork.parse_change checks it)."""
    kind = form.get("kind", "")
    if kind == "tool_result":
        result: dict[str, Any] = {"content": [{"type": "text", "text": form.get("result_text", "")}]}
        if form.get("is_error"):
            result["isError"] = True
        return {"kind": kind, "call": int(form.get("call") or 1) - 1, "result": result}
    if kind == "tool":
        change: dict[str, Any] = {"kind": kind, "tool": form.get("tool", "")}
        if description := form.get("description", "").strip():
            change["description"] = description
        if schema := form.get("input_schema", "").strip():
            try:
                change["input_schema"] = json.loads(schema)
            except json.JSONDecodeError as exc:
                raise ValueError(f"input_schema: not JSON ({exc.msg} at character {exc.pos}).") from None
        return change
    if kind == "system_prompt":
        return {"kind": kind, "system_prompt": form.get("system_prompt", "")}
    return {"kind": kind, "model": form.get("model", "")}
