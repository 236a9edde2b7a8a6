"""Who may change what: one rule per kind of object, for the pages and the API alike.

Everyone signed in sees everything and may use everything: inspect any server, run any scenario, press Test on a
provider or a scorer, duplicate a scenario or a scorer (the copy is theirs). Changing is narrower:

- staff may change and delete anything;
- anyone else changes or deletes only what they created (servers, scenarios, scorers); what has no recorded
  creator (seeded by `make run`, created on the command line, or whose creator's account was deleted) is staff's;
- stdio servers decide which command EvalHub runs on this machine: only staff change or delete them;
- a run is cancelled or re-scored by whoever started it or whoever may change its scenario (who may delete the
  scenario, and its runs with it, anyway);
- calling a server's tools for real (execution-level evals, and tool tests of tools that look destructive) is
  acknowledged once per server by whoever may change the server: its side effects are theirs to accept;
- an experiment is cancelled by whoever started it (one started on the command line has no recorded creator:
  staff's);
- an experiment is pinned as its tag's baseline (which every `--baseline pinned` gate of the tag then trusts) by
  whoever started it, whoever may change every scenario the tag holds, or staff (`require_pin`);
- a run is reviewed by anyone who may see it (everyone signed in); a review is changed only by its author (saving
  always writes the signed-in user's own review) and deleted by its author or staff (`review_delete_refusal`);
- providers and the models EvalHub uses are staff's (they hold the install's credentials: see
  evalhub.providers.views.staff_required); API keys are their owner's alone (evalhub.api_keys).

Views call `require_change(request.user, obj)` and API routes `require_change(acting_user(request), obj)` before
anything else, and pages show a button only `{% if user|can_change:obj %}`, so the UI and the API cannot disagree.
A refusal is a PermissionDenied whose sentence the 403 page and the API's INSUFFICIENT_PERMISSIONS envelope show.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs.experiments.models import Experiment
from runs.models import Review, Run
from scorers.models import Scorer

User = AbstractBaseUser | AnonymousUser
Changeable = McpServer | Scenario | Scorer | Run | Experiment

STDIO_STAFF_ONLY = "Only staff users can add or change stdio servers: saving one decides which command EvalHub runs."
# What a refused user can do instead, by kind.
ALTERNATIVES = {
    McpServer: "Register a server of your own to use other settings.",
    Scenario: "Duplicate it to get a copy you can change.",
    Scorer: "Duplicate it to get a copy you can change.",
}


def is_staff(user: User) -> bool:
    return bool(getattr(user, "is_staff", False))


def _created(user: User, obj: McpServer | Scenario | Scorer) -> str:
    """The creator rule: "" for the creator, else why not (naming the creator, so the user knows whom to ask)."""
    if obj.created_by_id is not None and obj.created_by_id == user.pk:
        return ""
    what = f"{obj._meta.verbose_name} “{obj}”"
    if obj.created_by is None:
        refusal = f"The {what} has no recorded creator, so only staff can change or delete it."
    else:
        refusal = f"Only the creator of the {what} ({obj.created_by.get_username()}) or staff can change or delete it."
    return f"{refusal} {ALTERNATIVES[type(obj)]}"


def _run_changers(run: Run) -> str:
    """Who may change a run, by name: "bob (who started it), carol (who created scenario “X”) or staff"."""
    who = [f"{run.started_by.get_username()} (who started it)"] if run.started_by is not None else []
    creator = run.scenario.created_by
    if creator is not None and creator.pk != run.started_by_id:
        who.append(f"{creator.get_username()} (who created scenario “{run.scenario}”)")
    return ", ".join(who) + " or staff" if who else "staff"


def _experiment_changers(experiment: Experiment, *others: str) -> str:
    """Who may, by name: "bob (who started it), whoever … or staff"; "staff (it has no recorded creator)"."""
    who = [f"{experiment.created_by.get_username()} (who started it)"] if experiment.created_by is not None else []
    who += others
    return ", ".join(who) + " or staff" if who else "staff (it has no recorded creator)"


def change_refusal(user: User, obj: Changeable) -> str:
    """Why `user` may not change `obj` (edit, delete, cancel, re-score), or "" when they may."""
    if is_staff(user):
        return ""
    if isinstance(obj, Experiment):
        if obj.created_by_id is not None and obj.created_by_id == user.pk:
            return ""
        return f"Only {_experiment_changers(obj)} can cancel experiment #{obj.pk}."
    if isinstance(obj, Run):
        if (obj.started_by_id is not None and obj.started_by_id == user.pk) or can_change(user, obj.scenario):
            return ""
        return f"Only {_run_changers(obj)} can cancel or re-score run #{obj.pk}."
    if isinstance(obj, McpServer) and obj.is_stdio:
        return STDIO_STAFF_ONLY
    return _created(user, obj)


def pin_refusal(user: User, experiment: Experiment) -> str:
    """Why `user` may not pin `experiment` as its tag's baseline, or "" when they may."""
    if not change_refusal(user, experiment):  # staff, or whoever started it
        return ""
    scenarios = list(Scenario.objects.filter(tags__name=experiment.tag).select_related("created_by"))
    if experiment.tag and scenarios and all(can_change(user, scenario) for scenario in scenarios):
        return ""
    tagged = [f"whoever may change every scenario tagged #{experiment.tag}"] if experiment.tag else []
    return f"Only {_experiment_changers(experiment, *tagged)} can pin experiment #{experiment.pk} as a baseline."


def can_pin(user: User, experiment: Experiment) -> bool:
    return not pin_refusal(user, experiment)


def require_pin(user: User, experiment: Experiment) -> None:
    """Refuse with a 403 that says why before a baseline pin changes."""
    refusal = pin_refusal(user, experiment)
    if refusal:
        raise PermissionDenied(refusal)


def can_change(user: User, obj: Changeable) -> bool:
    return not change_refusal(user, obj)


def require_change(user: User, obj: Changeable) -> None:
    """Refuse with a 403 that says why, before a view or an API route changes anything."""
    refusal = change_refusal(user, obj)
    if refusal:
        raise PermissionDenied(refusal)


def acknowledgers(server: McpServer) -> str:
    """Who may accept that the server's tools are called for real, by name: "alice (who added it) or staff"."""
    if server.is_stdio or server.created_by is None:
        return "staff"
    return f"{server.created_by.get_username()} (who added it) or staff"


def acknowledge_refusal(user: User, server: McpServer) -> str:
    """Why `user` may not accept the side effects of calling `server`'s tools for real, or "" when they may:
    whoever may change the server (a booking or a deletion it makes is its owner's to risk, not every user's)."""
    if can_change(user, server):
        return ""
    return f"Only {acknowledgers(server)} can allow the tools of “{server}” to be called for real."


def review_delete_refusal(user: User, review: Review) -> str:
    """Why `user` may not delete `review`, or "" when they may: its author or staff. A label is its author's word;
    staff clean up (a departed colleague's, a mistaken batch), nobody else rewrites what someone else said."""
    if is_staff(user) or (user.pk is not None and review.reviewer_id == user.pk):
        return ""
    return f"Only {review.reviewer.get_username()} (who wrote it) or staff can delete review #{review.pk}."


def can_delete_review(user: User, review: Review) -> bool:
    return not review_delete_refusal(user, review)


def require_review_delete(user: User, review: Review) -> None:
    refusal = review_delete_refusal(user, review)
    if refusal:
        raise PermissionDenied(refusal)
