"""Saving, testing, generating and applying scorers. The run worker, the views and the API all come here.

A scorer's content (kind, code, prompt, labels, judge model) is versioned: saving a change makes a new
ScorerVersion, and results keep the version that produced them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Protocol

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import F

from evalhub.naming import copy_name
from evalhub.providers.models import Provider, SiteSettings, offline_provider
from scorers import judge, sandbox
from scorers.generate import Generated, generate_scorer
from scorers.generate_examples import Example
from scorers.judge_cache import verdict_key
from scorers.models import CachedVerdict, Scorer, ScorerVersion

CONTENT_FIELDS = ("kind", "code", "system_prompt", "labels", "judge_provider", "judge_model")


class ScorerContent(Protocol):
    """What decides a score: a Scorer's current content, one of its versions, or an unsaved form."""

    kind: str
    code: str
    system_prompt: str
    labels: str
    judge_model: str

    @property
    def judge_provider(self) -> Provider | None: ...


@dataclass(frozen=True)
class Evaluation:
    """One scorer's verdict on one run record, whatever the scorer's kind.

    `score` is what counts: an error scores 0, a skipped judge has None and is left out of the mean.
    """

    outcome: Literal["ok", "errored", "skipped"]
    score: float | None
    reason: str = ""
    label: str = ""
    error: str = ""
    console: list[dict[str, str]] = field(default_factory=list)
    duration_ms: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: Decimal | None = Decimal(0)
    # A judge's verdict means something only relative to the model that gave it: {"provider", "model"}.
    judge: dict[str, str] | None = None
    # The judge was not asked: the verdict it gave the same question before answered (scorers.judge_cache).
    cached: bool = False


def judge_target(content: ScorerContent) -> tuple[Provider, str]:
    """The judge's own model, else the default judge model from Settings, else the offline model (skipped)."""
    if content.judge_provider is not None and content.judge_model:
        return content.judge_provider, content.judge_model
    site = SiteSettings.load()
    if site.judge_provider is not None and site.judge_model:
        return site.judge_provider, site.judge_model
    return offline_provider(), "evalhub-offline"


def scorer_evaluate(*, content: ScorerContent, record: Mapping[str, Any], reuse_verdicts: bool = False) -> Evaluation:
    """Score one run record. `reuse_verdicts` lets a judge's kept verdict on the same question answer (a re-score or
    a replay, scorers.judge_cache); a new run always asks the judge, whose own variance is part of what it measures."""
    if content.kind == Scorer.Kind.CODE:
        outcome = sandbox.run_scorer(content.code, record)
        console = [{"level": line.level, "text": line.text} for line in outcome.console]
        error = outcome.error + (f" ({outcome.console_note})" if outcome.console_note else "")
        return Evaluation(
            outcome=outcome.status,
            score=outcome.effective_score,
            reason="" if outcome.ok else f"Scorer error ({outcome.error_kind}): counted as 0.",
            error=error,
            console=console,
            duration_ms=round(outcome.duration_ms),
        )
    provider, model = judge_target(content)
    key = verdict_key(
        provider=f"{provider.pk}:{provider.base_url}",
        model=model,
        system_prompt=content.system_prompt,
        labels=content.labels,
        record=record,
    )
    kept = CachedVerdict.objects.filter(key=key).first() if key and reuse_verdicts else None
    if kept is not None:
        CachedVerdict.objects.filter(key=key).update(hits=F("hits") + 1)
        return Evaluation(
            outcome="ok",
            score=kept.score,
            reason=kept.reason,
            label=kept.label,
            cost_usd=Decimal(0),
            judge={"provider": provider.name, "model": model},
            cached=True,
        )
    verdict = judge.judge_run(
        provider=provider.to_config(),
        model=model,
        system_prompt=content.system_prompt,
        labels=content.labels,
        record=record,
    )
    evaluation = Evaluation(
        outcome=verdict.status,
        score=verdict.effective_score,
        reason=verdict.reason,
        label=verdict.label or "",
        error=verdict.error,
        duration_ms=round(verdict.duration_ms),
        input_tokens=verdict.usage.input_tokens if verdict.usage else 0,
        output_tokens=verdict.usage.output_tokens if verdict.usage else 0,
        cost_usd=verdict.cost.total_usd,
        judge={"provider": provider.name, "model": model},
    )
    if key and verdict.status == "ok" and verdict.score is not None:
        CachedVerdict.objects.get_or_create(
            key=key,
            defaults={
                "score": verdict.score,
                "label": verdict.label or "",
                "reason": verdict.reason,
                "judge_model": model,
            },
        )
    return evaluation


def _content_of(scorer: Scorer) -> dict[str, Any]:
    return {name: getattr(scorer, name) for name in CONTENT_FIELDS}


def scorer_save(*, scorer: Scorer, user: AbstractBaseUser | AnonymousUser) -> Scorer:
    """Save a new or edited scorer; a change of content makes a new version, old results keep theirs."""
    author = user if isinstance(user, get_user_model()) else None
    scorer.tidy_content()
    with transaction.atomic():
        if scorer.pk is None:
            scorer.version = 1
            scorer.created_by = author
            scorer.save()
        else:
            stored = Scorer.objects.select_for_update().get(pk=scorer.pk)
            changed = _content_of(stored) != _content_of(scorer)
            scorer.version = stored.version + 1 if changed else stored.version
            scorer.save()
            if not changed:
                return scorer
        ScorerVersion.objects.create(scorer=scorer, version=scorer.version, created_by=author, **_content_of(scorer))
    return scorer


def scorer_restore(*, scorer: Scorer, version: ScorerVersion, user: AbstractBaseUser | AnonymousUser) -> Scorer:
    """Make an old version's content current again, as a new version: history is never rewritten."""
    for name in CONTENT_FIELDS:
        setattr(scorer, name, getattr(version, name))
    return scorer_save(scorer=scorer, user=user)


def scorer_duplicate(*, scorer: Scorer, user: AbstractBaseUser | AnonymousUser) -> Scorer:
    name = copy_name(scorer.name, taken=lambda name: Scorer.objects.filter(name=name).exists())
    copy = Scorer(name=name, description=scorer.description, **_content_of(scorer))
    return scorer_save(scorer=copy, user=user)


def scorer_generate(
    *, description: str, tools: Sequence[Mapping[str, Any]], examples: Sequence[Example] = ()
) -> Generated:
    """Code for a plain-English description, by the generation model chosen in Settings (templates offline);
    `examples` are reviewed runs to learn from (scorers.calibration.wand picks them)."""
    site = SiteSettings.load()
    provider = site.generation_provider
    model = site.generation_model if provider is not None else ""
    return generate_scorer(
        description=description,
        tools=tools,
        provider=provider.to_config() if provider else None,
        model=model,
        examples=examples,
    )
