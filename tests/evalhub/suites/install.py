"""An install with something of every kind a suite file holds, secrets stored by value and by reference."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.models import User

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer
from scorers.models import Scorer
from scorers.services import scorer_save
from tests.base import make_demo_server, make_scenario

# Values that must never leave the database: not in an export, a plan, an error or a log line.
SECRET_VALUES = ("s3cret-env-value-123", "tok-by-value-456", "hdr-by-value-789", "sk-provider-000")


def build_install(user: User | None = None) -> dict[str, object]:
    demo = make_demo_server(env={"LOG_LEVEL": "info"})
    demo.set_secrets(bearer_token="", env={"DEMO_TOKEN": SECRET_VALUES[0]}, headers={})
    demo.save()
    remote = McpServer(
        name="Remote API", transport="http", url="https://mcp.example.com/mcp", headers={"X-Tenant": "acme"}
    )
    remote.set_secrets(
        bearer_token=SECRET_VALUES[1], env={}, headers={"X-Api-Key": SECRET_VALUES[2], "X-Other": "${REMOTE_OTHER}"}
    )
    remote.save()
    provider = Provider(
        name="Gateway", base_url="https://gateway.example.com/v1", model_names=["gpt-4o", "gpt-4o-mini"]
    )
    provider.set_secrets(api_key=SECRET_VALUES[3], headers={})
    provider.save()
    code = scorer_save(
        scorer=Scorer(name="Short answer", code="async ({ output }) => output.text.length < 400 ? 1 : 0"), user=user
    )
    judge = scorer_save(
        scorer=Scorer(
            name="Helpful judge",
            kind="judge",
            system_prompt="Was the answer helpful?",
            labels="GOOD|1\nBAD|0",
            judge_provider=provider,
            judge_model="gpt-4o-mini",
        ),
        user=user,
    )
    weather = make_scenario(
        demo,
        description="Forecast for Paris",
        system_prompt="You are a travel assistant.",
        max_turns=6,
        token_budget=20000,
        cost_budget_usd=Decimal("0.5000"),
        expectations=[
            {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$range": [48, 49]}}},
            {"kind": "final_answer", "icontains": "paris"},
        ],
        expected={"city": "Paris"},
    )
    weather.tags.set([Tag.objects.create(name="smoke"), Tag.objects.create(name="weather")])
    weather.scorers.set([code, judge])
    other = make_scenario(remote, name="Remote echo", prompt="Echo hello.", provider=provider, model="gpt-4o")
    other.tags.set([Tag.objects.get(name="smoke")])
    return {"demo": demo, "remote": remote, "provider": provider, "weather": weather, "other": other}


def wipe() -> None:
    Scenario.objects.all().delete()
    Scorer.objects.all().delete()
    McpServer.objects.all().delete()
    Provider.objects.filter(is_builtin=False).delete()
