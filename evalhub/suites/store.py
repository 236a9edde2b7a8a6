"""Records in the suite file's shape, and entries written back to records. The only Django part of suites besides
`services`.

`read_*` return complete entries (every field; `Section.complete` gives a file entry the same shape), so a plan is
a comparison. `write_*` set a record from a complete entry; fields whose `attr` names a model attribute are copied
generically, the rest (references by name, secrets, tags) here. A validation error of a record is raised as
InvalidRecord with the field it is about.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.db.models import Model

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer
from evalhub.suites import secrets
from evalhub.suites.plan import address_changed
from evalhub.suites.sections import SECTIONS, Section
from scorers.attachments import attach_scorers, attachments_of
from scorers.models import Scorer
from scorers.services import scorer_save


class InvalidRecord(Exception):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


def _generic(section: Section, obj: Model) -> dict[str, Any]:
    values = {}
    for key in section.fields:
        attr = section.attr(key)
        if attr is not None:
            value = getattr(obj, attr)
            values[key] = list(value) if isinstance(value, list) else value
    return values


def _set_generic(section: Section, obj: Model, entry: dict[str, Any]) -> None:
    for key in section.fields:
        attr = section.attr(key)
        if attr is not None and key in entry:
            setattr(obj, attr, entry[key])


def _clean(obj: Model, exclude: list[str] | None = None) -> None:
    try:
        obj.full_clean(exclude=exclude, validate_unique=False)
    except ValidationError as error:
        key, messages = next(iter(error.message_dict.items()))
        raise InvalidRecord(key if key != "__all__" else "name", " ".join(messages)) from None


# Servers ---------------------------------------------------------------------------------------------------------

SERVERS = SECTIONS["servers"]


def read_server(server: McpServer) -> dict[str, Any]:
    stored = server.secrets()
    env = {**server.env, **{k: secrets.as_reference(v, server.name, k) for k, v in stored["env"].items()}}
    headers = {
        **server.headers,
        **{k: secrets.as_reference(v, server.name, k) for k, v in stored["headers"].items()},
    }
    token = stored["bearer_token"]
    return SERVERS.complete(
        _generic(SERVERS, server)
        | {
            "env": dict(sorted(env.items())),
            "headers": dict(sorted(headers.items())),
            "bearer_token": secrets.as_reference(token, server.name, "bearer_token") if token else "",
        }
    )


def write_server(server: McpServer, entry: dict[str, Any]) -> McpServer:
    # Secrets belong to the address they were entered for: a server moved to another one keeps none of them.
    kept = server.pk and not address_changed(server.url, entry["url"])
    stored = server.secrets() if kept else {"env": {}, "headers": {}, "bearer_token": ""}
    _set_generic(SERVERS, server, entry)
    server.env, secret_env = secrets.split(entry["env"])
    server.headers, secret_headers = secrets.split(entry["headers"])
    server.set_secrets(
        bearer_token=secrets.to_store(
            entry["bearer_token"], stored["bearer_token"] or None, server.name, "bearer_token"
        )
        if entry["bearer_token"]
        else "",
        env={k: secrets.to_store(v, stored["env"].get(k), server.name, k) for k, v in secret_env.items()},
        headers={k: secrets.to_store(v, stored["headers"].get(k), server.name, k) for k, v in secret_headers.items()},
    )
    _clean(server, exclude=["created_by"])
    server.save()
    return server


# Providers -------------------------------------------------------------------------------------------------------

PROVIDERS = SECTIONS["providers"]


def read_provider(provider: Provider) -> dict[str, Any]:
    stored = provider.secrets()
    headers = {
        **provider.headers,
        **{k: secrets.as_reference(v, provider.name, k) for k, v in stored["headers"].items()},
    }
    key = stored["api_key"]
    return PROVIDERS.complete(
        _generic(PROVIDERS, provider)
        | {
            "headers": dict(sorted(headers.items())),
            "api_key": secrets.as_reference(key, provider.name, "api_key") if key else "",
        }
    )


def write_provider(provider: Provider, entry: dict[str, Any]) -> Provider:
    kept = provider.pk and not address_changed(provider.base_url, entry["base_url"])
    stored = provider.secrets() if kept else {"api_key": "", "headers": {}}
    _set_generic(PROVIDERS, provider, entry)
    provider.kind = Provider.Kind.OPENAI_COMPATIBLE
    provider.headers, secret_headers = secrets.split(entry["headers"])
    api_key = entry["api_key"]
    provider.set_secrets(
        api_key=secrets.to_store(api_key, stored["api_key"] or None, provider.name, "api_key") if api_key else "",
        headers={k: secrets.to_store(v, stored["headers"].get(k), provider.name, k) for k, v in secret_headers.items()},
    )
    _clean(provider)
    provider.save()
    return provider


# Scorers ---------------------------------------------------------------------------------------------------------

SCORERS = SECTIONS["scorers"]


def read_scorer(scorer: Scorer) -> dict[str, Any]:
    scorer.tidy_content()  # in memory only: a scorer saved before tidying exports what its kind uses
    provider = scorer.judge_provider.name if scorer.judge_provider else ""
    return SCORERS.complete(_generic(SCORERS, scorer) | {"judge_provider": provider})


def write_scorer(scorer: Scorer, entry: dict[str, Any], *, user: AbstractBaseUser | AnonymousUser) -> Scorer:
    """Through `scorer_save`, so a change of content makes a new version, as in the UI."""
    _set_generic(SCORERS, scorer, entry)
    scorer.judge_provider = Provider.objects.get(name=entry["judge_provider"]) if entry["judge_provider"] else None
    _clean(scorer, exclude=["created_by", "scenarios"])
    return scorer_save(scorer=scorer, user=user)


# Scenarios -------------------------------------------------------------------------------------------------------

SCENARIOS = SECTIONS["scenarios"]


def read_scenario(scenario: Scenario) -> dict[str, Any]:
    cost = scenario.cost_budget_usd
    attachments = attachments_of(scenario)
    return SCENARIOS.complete(
        _generic(SCENARIOS, scenario)
        | {
            "server": scenario.server.name,
            "provider": scenario.provider.name,
            "cost_budget_usd": float(cost) if cost is not None else None,
            "tags": [tag.name for tag in scenario.tags.all()],
            "scorers": [a.scorer.name for a in attachments if not a.advisory],
            "advisory_scorers": [a.scorer.name for a in attachments if a.advisory],
            "scorer_thresholds": {a.scorer.name: a.threshold for a in attachments if a.threshold is not None},
        }
    )


def write_scenario(scenario: Scenario, entry: dict[str, Any]) -> Scenario:
    _set_generic(SCENARIOS, scenario, entry)
    scenario.server = McpServer.objects.get(name=entry["server"])
    scenario.provider = Provider.objects.get(name=entry["provider"])
    cost = entry["cost_budget_usd"]
    scenario.cost_budget_usd = Decimal(str(cost)) if cost is not None else None
    _clean(scenario, exclude=["created_by", "tags"])
    scenario.save()
    scenario.tags.set([Tag.objects.get_or_create(name=name)[0] for name in entry["tags"]])
    scorers = {s.name: s for s in Scorer.objects.filter(name__in=[*entry["scorers"], *entry["advisory_scorers"]])}
    attach_scorers(
        scenario=scenario,
        scorers=scorers.values(),
        advisory={scorers[name].pk for name in entry["advisory_scorers"] if name in scorers},
        thresholds={s.pk: entry["scorer_thresholds"].get(name) for name, s in scorers.items()},
    )
    return scenario


# The whole install -------------------------------------------------------------------------------------------------

MODELS: dict[str, type[Model]] = {
    "servers": McpServer,
    "providers": Provider,
    "scorers": Scorer,
    "scenarios": Scenario,
}
READERS: dict[str, Any] = {
    "servers": read_server,
    "providers": read_provider,
    "scorers": read_scorer,
    "scenarios": read_scenario,
}


def records(key: str) -> Any:
    """The records of a section a suite manages (built-in providers exist everywhere and are not managed)."""
    if key == "providers":
        return Provider.objects.filter(is_builtin=False).order_by("name")
    if key == "scenarios":
        return Scenario.objects.select_related("server", "provider").prefetch_related("tags", "scorers")
    if key == "scorers":
        return Scorer.objects.select_related("judge_provider")
    return MODELS[key].objects.all()  # type: ignore[attr-defined]


def read_all() -> dict[str, dict[str, dict[str, Any]]]:
    return {key: {obj.name: READERS[key](obj) for obj in records(key)} for key in SECTIONS}
