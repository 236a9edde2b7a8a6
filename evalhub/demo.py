"""The demo that `make run` seeds. Each fixture is idempotent: it creates what is missing and leaves the rest alone.

Add a fixture here when a feature lands and append it to DEMO_FIXTURES. Each returns the lines to print, so the
seeding command reports what it did.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model

from evalhub.mcpclient.errors import McpConnectionError
from evalhub.models import McpServer, Scenario, Tag
from evalhub.models.providers import OFFLINE_MODEL, offline_provider
from evalhub.services import server_inspect

DEMO_USERNAME = "demo"
DEMO_SERVER = "Demo travel server"
DEMO_SCENARIOS = [
    {
        "name": "Weather in Paris",
        "prompt": "What's the weather at latitude 48.85, longitude 2.35?",
        "expected_tools": ["get_weather"],
        "tags": ["smoke", "weather"],
        "description": "The agent should call get_weather with Paris's coordinates.",
    },
    {
        "name": "Find flights to Rome",
        "prompt": "Search flights from Paris to Rome on 2026-12-18.",
        "expected_tools": ["search_flights"],
        "tags": ["smoke", "flights"],
        "description": "The agent should search flights with origin, destination and date.",
    },
]


def seed_demo_user() -> list[str]:
    User = get_user_model()
    if User.objects.filter(username=DEMO_USERNAME).exists():
        return [
            f"Demo login: {DEMO_USERNAME} (its password was printed when it was created; "
            f"reset it with: .venv/bin/python manage.py changepassword {DEMO_USERNAME})"
        ]
    password = secrets.token_urlsafe(12)
    # A local install's first user owns it, so it may also register stdio servers and use the admin.
    User.objects.create_superuser(username=DEMO_USERNAME, email="", password=password)
    return [
        "Created the demo login (shown only this once):",
        f"    username: {DEMO_USERNAME}",
        f"    password: {password}",
    ]


def seed_demo_server() -> list[str]:
    server, created = McpServer.objects.get_or_create(
        name=DEMO_SERVER,
        defaults={
            "transport": McpServer.Transport.STDIO,
            "command": sys.executable,
            "args": ["-m", "evalhub.demo_server"],
            "cwd": str(settings.BASE_DIR),
            "description": "Bundled with EvalHub: weather and flight tools, deterministic, no network.",
        },
    )
    if not created and server.latest_snapshot() is not None:
        return [f"Demo server: {DEMO_SERVER} (exists)"]
    try:
        inspection = server_inspect(server=server)
    except McpConnectionError as exc:
        return [f"Demo server: {DEMO_SERVER} registered, but inspecting it failed: {exc.message}"]
    return [f"Demo server: {DEMO_SERVER} registered over stdio, {len(inspection.tools)} tools."]


def seed_demo_scenarios() -> list[str]:
    server = McpServer.objects.get(name=DEMO_SERVER)
    provider = offline_provider()
    created = 0
    for spec in DEMO_SCENARIOS:
        scenario, was_created = Scenario.objects.get_or_create(
            name=spec["name"],
            defaults={
                "prompt": spec["prompt"],
                "description": spec["description"],
                "expected_tools": spec["expected_tools"],
                "server": server,
                "provider": provider,
                "model": OFFLINE_MODEL,
            },
        )
        if was_created:
            scenario.tags.set([Tag.objects.get_or_create(name=name)[0] for name in spec["tags"]])
            created += 1
    return [f"Demo scenarios: {created} created, {len(DEMO_SCENARIOS) - created} existed."]


DEMO_FIXTURES: list[Callable[[], list[str]]] = [seed_demo_user, seed_demo_server, seed_demo_scenarios]
