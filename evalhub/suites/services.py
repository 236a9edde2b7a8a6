"""Export, plan and apply suite files: what the `evalhub` command, the API and the Scenarios page call.

Applying is one transaction: the plan is made, references and secrets are checked, every step is written, and any
failure rolls all of it back. A dry run does the same checks and rolls back too, so it changes nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import ProtectedError

from evalhub import vault
from evalhub.mcp_client.config import ALWAYS_SECRET_HEADERS, HEADER_NAME, HEADER_NAME_RULE
from evalhub.providers.models import Provider, ensure_builtin_providers
from evalhub.scenarios.models import Scenario
from evalhub.servers.form_parts import looks_secret_env, url_shape_problem
from evalhub.servers.http_settings import ca_bundle_problem
from evalhub.servers.models import McpServer
from evalhub.suites import secrets, store
from evalhub.suites.mcptest import Conversion, convert
from evalhub.suites.mcptest.load import load_mcptest
from evalhub.suites.plan import Plan, Step, make_plan, moves_secrets
from evalhub.suites.schema import FORMAT_VERSION
from evalhub.suites.sections import SECTIONS
from evalhub.suites.source import Source, SourceError, dump
from evalhub.suites.validation import InvalidSuite, Problem, read_suite

logger = logging.getLogger(__name__)
User = AbstractBaseUser | AnonymousUser


# Export ------------------------------------------------------------------------------------------------------------


def suite_export(*, schema_url: str, tag: str = "") -> str:
    """The install (or the scenarios with `tag`, and what they use) as a suite file; secrets only as `${VAR}`."""
    ensure_builtin_providers()
    everything = store.read_all()
    scenarios = [e for e in everything["scenarios"].values() if not tag or tag in e["tags"]]
    chosen: dict[str, list[dict[str, Any]]] = {"scenarios": scenarios}
    if tag:
        used = {
            "servers": {e["server"] for e in scenarios},
            "scorers": {n for e in scenarios for n in [*e["scorers"], *e["advisory_scorers"]]},
        }
        chosen["servers"] = [everything["servers"][name] for name in sorted(used["servers"])]
        chosen["scorers"] = [everything["scorers"][name] for name in sorted(used["scorers"])]
        providers = {e["provider"] for e in scenarios} | {e["judge_provider"] for e in chosen["scorers"]}
        chosen["providers"] = [e for name, e in everything["providers"].items() if name in providers]
    else:
        chosen |= {key: list(everything[key].values()) for key in ("servers", "providers", "scorers")}
    data: dict[str, Any] = {"version": FORMAT_VERSION}
    for key, section in SECTIONS.items():
        if chosen[key]:  # an empty section is left out: with --prune, a section present means "exactly these"
            data[key] = [section.compact(entry) for entry in chosen[key]]
    return _header(schema_url, data, tag) + dump(data)


def _header(schema_url: str, data: Mapping[str, Any], tag: str) -> str:
    lines = [f"# yaml-language-server: $schema={schema_url}", "# EvalHub suite: `manage.py evalhub apply -f <file>`."]
    if tag:
        # As JSON: the tag is the caller's text, and a line break in it must not end the comment.
        lines.append(f"# Scenarios tagged {json.dumps(tag)} and the servers, scorers and providers they use.")
    names = sorted(set(secrets.REFERENCE.findall(dump({k: data.get(k) for k in ("servers", "providers")}))))
    if names:
        lines.append("# Secrets are references: set these environment variables where EvalHub runs, and list them in")
        lines.append(f"# {vault.ALLOWLIST_SETTING}: {', '.join(names)}")
    return "\n".join(lines) + "\n"


# Apply -----------------------------------------------------------------------------------------------------------


def suite_apply(
    *, text: str, filename: str = "suite.yaml", user: User | None = None, prune: bool = False, dry_run: bool = False
) -> Plan:
    """Apply a suite file (or, with `dry_run`, only plan it); raises InvalidSuite naming file, line and pointer."""
    data, source = read_suite(text, filename)
    with transaction.atomic():
        ensure_builtin_providers()
        current = store.read_all()
        plan = make_plan(current, data, prune=prune)
        problems = _reference_problems(data, current, plan) + _secret_problems(data, current)
        if problems:
            raise InvalidSuite(_located(problems, source, filename))
        if dry_run:
            transaction.set_rollback(True)
            return plan
        try:
            _execute(plan, data, user or AnonymousUser())
        except store.InvalidRecord as error:
            raise InvalidSuite(_located([(error.key, error.message)], source, filename)) from None
    logger.info("Applied a suite from %s: %s", filename, plan.summary())
    return plan


def _located(problems: list[tuple[str, str]], source: Source, filename: str) -> list[Problem]:
    return [Problem(filename, source.line_of(pointer), pointer, message) for pointer, message in problems]


def _deleted(plan: Plan, key: str) -> set[str]:
    return {step.name for step in plan.steps if step.action == "delete" and step.section == key}


def _reference_problems(data: dict[str, Any], current: dict[str, Any], plan: Plan) -> list[tuple[str, str]]:
    """Names that must exist once applied: in the file, or on the install and not pruned."""
    ensure = {
        key: {e["name"] for e in data.get(key) or []} | (set(current[key]) - _deleted(plan, key)) for key in SECTIONS
    }
    ensure["providers"] |= set(Provider.objects.filter(is_builtin=True).values_list("name", flat=True))
    found = []
    for index, entry in enumerate(data.get("scenarios") or []):
        where = f"/scenarios/{index}"
        for key, section in (("server", "servers"), ("provider", "providers")):
            if entry[key] not in ensure[section]:
                found.append((f"{where}/{key}", f"no {key} named {entry[key]!r} in the file or in EvalHub"))
        for key in ("scorers", "advisory_scorers"):
            for position, name in enumerate(entry.get(key, [])):
                if name not in ensure["scorers"]:
                    found.append((f"{where}/{key}/{position}", f"no scorer named {name!r} in the file or in EvalHub"))
        attached = {*entry.get("scorers", []), *entry.get("advisory_scorers", [])}
        for name in entry.get("scorer_thresholds", {}):
            if name not in attached:
                found.append((f"{where}/scorer_thresholds/{name}", f"{name!r} is not one of this scenario's scorers"))
    for index, entry in enumerate(data.get("scorers") or []):
        name = entry.get("judge_provider", "")
        if name and name not in ensure["providers"]:
            found.append((f"/scorers/{index}/judge_provider", f"no provider named {name!r} in the file or in EvalHub"))
    return found


def _secret_problems(data: dict[str, Any], current: dict[str, Any]) -> list[tuple[str, str]]:
    """Credentials written as plain values, and references this install may not resolve (new ones only: a
    reference an export wrote for a secret stored here by value keeps that value)."""
    found = []
    for index, entry in enumerate(data.get("scenarios") or []):
        # A scenario's variables read the worker's environment: the same allowlist as a secret reference.
        for name, variable in (entry.get("variables") or {}).items():
            if (refusal := vault.reference_refusal(variable["env"])) is not None:
                found.append((f"/scenarios/{index}/variables/{name}/env", refusal))
    for key in ("servers", "providers"):
        for index, entry in enumerate(data.get(key) or []):
            stored = current[key].get(entry["name"], {})
            moved = bool(stored) and moves_secrets(key, stored, SECTIONS[key].complete(entry))
            if moved:
                stored = {}  # its secrets are dropped: every reference the file writes is new, and checked
            where = f"/{key}/{index}"
            for field in ("env", "headers"):
                for name, value in (entry.get(field) or {}).items():
                    pointer = f"{where}/{field}/{name}"
                    credential = field == "headers" and name.lower() in ALWAYS_SECRET_HEADERS
                    if field == "headers" and not HEADER_NAME.match(name):
                        found.append((pointer, f"“{name}” is not a valid header name ({HEADER_NAME_RULE}); rename it"))
                    elif vault.env_reference(value) is None and (
                        credential or looks_secret_env(name.replace("-", "_"))
                    ):
                        found.append((pointer, f"{name} looks like a credential: write it as a ${{VAR}} reference"))
                    elif value != (stored.get(field) or {}).get(name):
                        found += _refusal(pointer, value, moved)
            for field in ("bearer_token", "api_key"):
                value = entry.get(field, "")
                if value and value != stored.get(field):
                    found += _refusal(f"{where}/{field}", value, moved)
            if (path := entry.get("tls_ca_bundle_path")) and (problem := ca_bundle_problem(path)) is not None:
                found.append((f"{where}/tls_ca_bundle_path", problem))
            url = entry.get("url") or entry.get("base_url") or ""
            if url and (problem := url_shape_problem(url)) is not None:
                found.append((f"{where}/{'url' if 'url' in entry else 'base_url'}", problem))
    return found


def _refusal(pointer: str, value: str, moved: bool) -> list[tuple[str, str]]:
    name = vault.env_reference(value)
    refusal = vault.reference_refusal(name) if name else None
    if refusal and moved:
        refusal = (
            f"the URL moves to another address, so the stored secret stays behind and this is a new one: {refusal}"
        )
    return [(pointer, refusal)] if refusal else []


def _execute(plan: Plan, data: dict[str, Any], user: User) -> None:
    author = user if user.is_authenticated else None
    for step in plan.steps:
        if step.action == "delete" or step.index is None:
            continue
        section = SECTIONS[step.section]
        entry = section.complete(data[step.section][step.index])
        try:
            _write(step, entry, user, author)
        except store.InvalidRecord as error:
            raise store.InvalidRecord(f"/{step.section}/{step.index}/{error.key}", error.message) from None
    for key in ("scenarios", "scorers", "servers", "providers"):  # dependents first
        for step in plan.steps:
            if step.action == "delete" and step.section == key:
                _delete(step)


def _write(step: Step, entry: dict[str, Any], user: User, author: Any) -> None:
    name = entry["name"]
    if step.section == "servers":
        store.write_server(McpServer.objects.filter(name=name).first() or McpServer(created_by=author), entry)
    elif step.section == "providers":
        store.write_provider(Provider.objects.filter(name=name).first() or Provider(), entry)
    elif step.section == "scorers":
        from scorers.models import Scorer

        store.write_scorer(Scorer.objects.filter(name=name).first() or Scorer(), entry, user=user)
    else:
        store.write_scenario(Scenario.objects.filter(name=name).first() or Scenario(created_by=author), entry)


def _delete(step: Step) -> None:
    try:
        store.records(step.section).filter(name=step.name).delete()
    except ProtectedError as error:
        users = sorted({str(obj) for obj in error.protected_objects})
        raise store.InvalidRecord(
            f"/{step.section}", f"cannot delete {step.name!r}: still used by {', '.join(users)}"
        ) from None


# mcptest ---------------------------------------------------------------------------------------------------------


def mcptest_convert(*, text: str, filename: str, provider: str, model: str, schema_url: str) -> tuple[str, Conversion]:
    """An mcptest suite as EvalHub suite text, and the conversion (its notes say what did not carry over).
    Raises InvalidSuite when it cannot be converted: `from_env` is never read here (see mcptest/context.py)."""
    try:
        source = load_mcptest(text)
    except SourceError as error:
        raise InvalidSuite([Problem(filename, error.line, error.pointer, error.message)]) from None
    conversion = convert(source.data, provider=provider, model=model)
    if conversion.problems:
        # Refused whole, as mcptest refuses to load it: every problem with its line and pointer.
        raise InvalidSuite(_located(conversion.problems, source, filename))
    header = f"# yaml-language-server: $schema={schema_url}\n# Imported from mcptest {filename}.\n"
    return header + dump(conversion.suite), conversion


def mcptest_import(
    *, text: str, filename: str, user: User | None, dry_run: bool, provider: str, model: str, schema_url: str
) -> tuple[Plan, Conversion]:
    converted, conversion = mcptest_convert(
        text=text, filename=filename, provider=provider, model=model, schema_url=schema_url
    )
    plan = suite_apply(text=converted, filename=f"{filename} (converted)", user=user, dry_run=dry_run)
    return plan, conversion
