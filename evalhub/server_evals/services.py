"""Importing a server's shipped evals as scenarios and keeping them in step with the server.

The list is the one the server's latest inspection read (evalhub.mcp_client.server_evals); `shipped_evals_sync`
imports the chosen evals and updates every scenario already linked to one: changed evals rewrite what came from
the eval, removed ones are marked *removed upstream* and kept with their runs. A sync changes only what its caller
may change (evalhub.permissions): another user's linked scenario or judge is left as it is and reported as
*changed upstream, not applied*, naming its owner, so their next sync applies it. Views, the API and the CLI call it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from evalhub.mcp_client import server_evals
from evalhub.mcp_client.server_evals import InvalidEval
from evalhub.permissions import acknowledge_refusal, acknowledgers, can_change
from evalhub.providers.models import Provider, SiteSettings, offline_provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.server_evals import mapping
from evalhub.servers.models import McpServer, ShippedEval
from scorers.judge import VERDICT_LABELS
from scorers.models import Scorer
from scorers.services import scorer_save

DEFAULT_MAX_TURNS = Scenario._meta.get_field("max_turns").get_default()


class SideEffectsUnacknowledged(Exception):
    """A real tool call (an execution-level scenario, or a tool test of a tool that looks destructive) on a server
    whose owner has not accepted that; the message says who may."""

    def __init__(self, server: McpServer, *, tool: str = "") -> None:
        self.server, self.tool = server, tool
        what = f"{tool!r} looks destructive; testing it calls" if tool else "Execution-level evals call"
        how = (
            f"POST /api/v1/servers/{server.pk}/side-effects/acknowledge"
            if tool
            else "the API takes acknowledge_side_effects: true, the CLI --acknowledge-side-effects"
        )
        super().__init__(
            f"{what} the tools of “{server.name}” for real (bookings, writes, deletions happen). Acknowledge that on "
            f"the server's page first ({how}); {acknowledgers(server)} can."
        )

    @property
    def details(self) -> dict[str, Any]:
        """The API's error details: which server, and how to acknowledge."""
        how = f"POST /api/v1/servers/{self.server.pk}/side-effects/acknowledge" if self.tool else None
        return {"server_id": self.server.pk, "acknowledge_with": how or "acknowledge_side_effects: true"}


def require_side_effects_acknowledged(scenario: Scenario) -> None:
    """Raise SideEffectsUnacknowledged before an execution-level run of an unacknowledged server is queued."""
    if scenario.level == Scenario.Level.EXECUTION and scenario.server.side_effects_acknowledged_at is None:
        raise SideEffectsUnacknowledged(scenario.server)


def side_effects_acknowledge(*, server: McpServer, user: AbstractBaseUser | AnonymousUser) -> None:
    """Record who accepted that the server's tools are called for real, and when (once). Raises PermissionDenied
    naming who may (evalhub.permissions.acknowledge_refusal). No user is the command line on EvalHub's own machine
    (runs/ci), which may change anything anyway."""
    author = user if isinstance(user, get_user_model()) else None
    if author is not None and (refusal := acknowledge_refusal(author, server)):
        raise PermissionDenied(refusal)
    if server.side_effects_acknowledged_at is not None:
        return
    server.side_effects_acknowledged_at = timezone.now()
    server.side_effects_acknowledged_by = author
    server.save(update_fields=["side_effects_acknowledged_at", "side_effects_acknowledged_by"])


def side_effects_settle(
    *, scenarios: Iterable[Scenario], acknowledge: bool, user: AbstractBaseUser | AnonymousUser
) -> None:
    """Before starting `scenarios`: acknowledge their execution-level servers when the caller said so (the API's
    acknowledge_side_effects, the CLI's --acknowledge-side-effects), else raise for the first one not acknowledged."""
    for scenario in scenarios:
        if scenario.level != Scenario.Level.EXECUTION or scenario.server.side_effects_acknowledged_at is not None:
            continue
        if not acknowledge:
            raise SideEffectsUnacknowledged(scenario.server)
        side_effects_acknowledge(server=scenario.server, user=user)


class NotInspected(Exception):
    """The server has no successful inspection to import from."""


class NotApplied(TypedDict):
    id: str
    reason: str  # "changed upstream, not applied: owned by alice"


@dataclass
class SyncReport:
    """What one sync did, by eval id."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    not_imported: list[str] = field(default_factory=list)  # shipped, valid, not chosen (e.g. new upstream)
    # Changed or removed upstream, but the linked scenario or its judge is not the caller's to change.
    not_applied: list[NotApplied] = field(default_factory=list)
    invalid: list[InvalidEval] = field(default_factory=list)

    def summary(self) -> str:
        parts = [
            f"{len(ids)} {label}"
            for ids, label in (
                (self.added, "imported"),
                (self.changed, "updated"),
                (self.removed, "removed upstream (kept)"),
                (self.unchanged, "unchanged"),
                (self.not_imported, "not imported (tick them to import)"),
            )
            if ids
        ]
        reasons = Counter(item["reason"] for item in self.not_applied)
        parts += [f"{count} {reason}" for reason, count in reasons.items()]
        if self.invalid:
            parts.append(f"{len(self.invalid)} invalid, not imported")
        return ", ".join(parts) or "Nothing to import"

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "not_imported": self.not_imported,
            "not_applied": self.not_applied,
            "invalid": self.invalid,
        }


# Shipped evals per page of the server page's list.
PAGE_SIZE = 50


def shipped_evals(server: McpServer) -> list[dict[str, Any]]:
    """The valid evals the server's latest inspection kept (at most EVALHUB_SHIPPED_EVALS_MAX)."""
    return [row.data for row in server.shipped_evals.all()]


def shipped_cap(server: McpServer) -> str:
    """What the latest inspection left out of the server's evals, in words, or ""."""
    cap = (server.last_inspection or {}).get("evals_cap")
    return server_evals.cap_message(cap) if cap else ""


def _beyond_cap(server: McpServer) -> bool:
    """Whether the server ships valid evals past those kept: a linked eval not among them may still be shipped."""
    cap = (server.last_inspection or {}).get("evals_cap")
    return cap is not None and cap["shipped"] - cap["invalid"] > cap["kept"]


def shipped_rows(server: McpServer, evals: Iterable[ShippedEval]) -> list[dict[str, Any]]:
    """Each of `evals` (a page of the server's) with the scenario linked to it, or None."""
    items = [row.data for row in evals]
    linked = {s.shipped_eval_id: s for s in server.scenarios.filter(shipped_eval_id__in=[i["id"] for i in items])}
    return [{"eval": item, "level": item["input"]["type"], "scenario": linked.get(item["id"])} for item in items]


def removed_rows(server: McpServer) -> list[dict[str, Any]]:
    """Linked scenarios whose eval is not among those kept: removed upstream, or (`beyond_cap`) maybe shipped past
    the cap, which the latest inspection did not keep."""
    gone = (
        server.scenarios.exclude(shipped_eval_id="")
        .exclude(shipped_eval_id__in=server.shipped_evals.values("eval_id"))
        .order_by("name")
    )
    beyond_cap = _beyond_cap(server)
    return [
        {"eval": s.shipped_eval, "level": s.level, "scenario": s, "removed": True, "beyond_cap": beyond_cap}
        for s in gone
    ]


def shipped_evals_sync(
    *,
    server: McpServer,
    user: AbstractBaseUser | AnonymousUser,
    import_ids: Collection[str] | None = None,
    provider: Provider | None = None,
    model: str = "",
) -> SyncReport:
    """Import the evals in `import_ids` (None: every one) and bring every linked scenario up to date.

    New scenarios use `provider`/`model` (default: the offline model) for their invocation and scenario levels.
    Raises NotInspected when there is no inspection to read, and ValueError naming an id the server does not ship.
    """
    if server.last_inspection is None:
        raise NotInspected(f"Inspect “{server.name}” first: its shipped evals are read by an inspection.")
    current = {item["id"]: item for item in shipped_evals(server)}
    wanted = set(current) if import_ids is None else set(import_ids)
    if unknown := sorted(wanted - set(current)):
        raise ValueError(f"“{server.name}” does not ship {', '.join(repr(i) for i in unknown)}; inspect it again.")
    report = SyncReport(invalid=list(server.last_inspection.get("invalid_evals") or []))
    author = user if isinstance(user, get_user_model()) else None
    beyond_cap = _beyond_cap(server)
    with transaction.atomic():
        linked = {s.shipped_eval_id: s for s in server.scenarios.select_for_update().exclude(shipped_eval_id="")}
        for eval_id, scenario in linked.items():
            upstream = current.get(eval_id)
            if upstream is None and scenario.shipped_eval_removed_at is not None:
                continue
            if upstream is None and beyond_cap:
                report.not_applied.append({"id": eval_id, "reason": "not among the evals kept, so not checked"})
                continue
            if upstream == scenario.shipped_eval and scenario.shipped_eval_removed_at is None:
                report.unchanged.append(eval_id)
            elif owner := _owner_refusing(user, scenario, _judge_of(scenario, eval_id)):
                report.not_applied.append({"id": eval_id, "reason": f"changed upstream, not applied: owned by {owner}"})
            elif upstream is None:
                scenario.shipped_eval_removed_at = timezone.now()
                scenario.save(update_fields=["shipped_eval_removed_at", "updated_at"])
                report.removed.append(eval_id)
            else:
                _apply(scenario, upstream, user=user)
                report.changed.append(eval_id)
        chosen_provider = provider or offline_provider()
        chosen_model = model or (chosen_provider.model_names or [""])[0]
        report.not_imported = [eval_id for eval_id in current if eval_id not in wanted and eval_id not in linked]
        for eval_id, eval_ in current.items():
            if eval_id in wanted and eval_id not in linked:
                scenario = Scenario(
                    server=server,
                    provider=chosen_provider,
                    model=chosen_model,
                    name=_free_name(f"{server.name}: {eval_['name']}", eval_id),
                    created_by=author,
                )
                # A judge left by a deleted import is its creator's: a new import must not rewrite it either.
                if owner := _owner_refusing(user, _judge_of(scenario, eval_id)):
                    report.not_applied.append({"id": eval_id, "reason": f"not imported: its judge is owned by {owner}"})
                    continue
                _apply(scenario, eval_, user=user)
                report.added.append(eval_id)
    return report


def _apply(scenario: Scenario, eval_: dict[str, Any], *, user: AbstractBaseUser | AnonymousUser) -> None:
    """Write what comes from the eval onto the scenario, its tags and its judge (created, updated or detached)."""
    for name, value in mapping.scenario_fields(eval_, default_max_turns=DEFAULT_MAX_TURNS).items():
        setattr(scenario, name, value)
    scenario.save()
    tags = [Tag.objects.get_or_create(name=name)[0] for name in (*mapping.TAGS, scenario.level)]
    scenario.tags.add(*tags)
    judge = _judge_of(scenario, eval_["id"])
    if eval_["gradingType"] != "llm-as-judge":
        if judge is not None:
            judge.scenarios.remove(scenario)
        return
    if judge is None:
        site = SiteSettings.load()
        judge = Scorer(
            name=_judge_name(scenario, eval_["id"]),
            kind=Scorer.Kind.JUDGE,
            judge_provider=site.judge_provider,
            judge_model=site.judge_model,
        )
    judge.description = f"The llm-as-judge rubric of the eval {eval_['id']!r} shipped by {scenario.server.name}."
    judge.system_prompt = mapping.judge_prompt(eval_)
    judge.labels = VERDICT_LABELS
    scorer_save(scorer=judge, user=user)
    judge.scenarios.add(scenario)


def _judge_name(scenario: Scenario, eval_id: str) -> str:
    return f"{scenario.server.name} · {eval_id}"[:200]


def _judge_of(scenario: Scenario, eval_id: str) -> Scorer | None:
    """The label judge a sync made for the eval's rubric, if there is one."""
    return Scorer.objects.filter(name=_judge_name(scenario, eval_id)).first()


def _owner_refusing(user: AbstractBaseUser | AnonymousUser, *objects: Scenario | Scorer | None) -> str:
    """Whose is the first of `objects` that `user` may not change ("staff" when it has no recorded creator), or ""."""
    for obj in objects:
        if obj is not None and not can_change(user, obj):
            return obj.created_by.get_username() if obj.created_by is not None else "staff"
    return ""


def _free_name(name: str, eval_id: str) -> str:
    """`name`, or `name (eval id)` when a scenario already has it (scenario names are unique)."""
    if not Scenario.objects.filter(name=name[:200]).exists():
        return name[:200]
    return f"{name[: 196 - len(eval_id)]} ({eval_id})"
