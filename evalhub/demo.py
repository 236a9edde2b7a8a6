"""The demo that `make run` seeds. Each fixture is idempotent: it creates what is missing and leaves the rest alone.

Add a fixture here when a feature lands and append it to DEMO_FIXTURES. Each returns the lines to print, so the
seeding command reports what it did.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from evalhub.mcp_client.errors import McpConnectionError
from evalhub.providers.models import OFFLINE_MODEL, offline_provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer
from evalhub.servers.services import server_inspect
from scorers.contract import EXAMPLE_SCORER
from scorers.models import Scorer
from scorers.services import scorer_save

DEMO_USERNAME = "demo"
DEMO_SERVER = "Demo travel server"
# The no-code version of the reference's coordinate scorer, plus what a user asks next: no errors, no booking. A
# server whose get_weather answers errors makes these scenarios fail (an experiment's regression).
WEATHER_EXPECTATIONS: list[dict[str, Any]] = [
    {
        "kind": "tool_called",
        "tool": "get_weather",
        "args": {"latitude": {"$range": [-90, 90]}, "longitude": {"$range": [-180, 180]}},
    },
    {"kind": "tool_not_called", "tool": "book_flight"},
    {"kind": "no_tool_errors"},
]
CONVERSATION_SCENARIO = "Conversation: book a flight to Paris"
BOOKING_FACTS = {"origin": "London", "destination": "Paris", "date": "2026-12-18", "passengers": 2}
DEMO_SCENARIOS: list[dict[str, Any]] = [
    {
        "name": "Weather in Paris",
        "prompt": "What's the weather at latitude 48.85, longitude 2.35?",
        "expected_tools": ["get_weather"],
        "tags": ["smoke", "weather"],
        "description": "The agent should call get_weather with Paris's coordinates.",
        "expectations": WEATHER_EXPECTATIONS,
    },
    {
        "name": "Weather in Paris (code mode)",
        "prompt": "What's the weather at latitude 48.85, longitude 2.35?",
        "expected_tools": ["get_weather"],
        "tags": ["smoke", "weather", "code-mode"],
        "description": "The same question in code mode: the agent writes JavaScript that calls tools.get_weather; "
        "the call is recorded nested in its run_code call, and the same expectations and scorer apply.",
        "tool_mode": "code",
        "expectations": WEATHER_EXPECTATIONS,
    },
    {
        "name": "Find flights to Rome",
        "prompt": "Search flights from Paris to Rome on 2026-12-18.",
        "expected_tools": ["search_flights"],
        "tags": ["smoke", "flights"],
        "description": "The agent should search flights with origin, destination and date.",
    },
    {
        "name": "Restraint: booking without details",
        "prompt": "Book me a flight to Paris",
        "expected_tools": [],
        "tags": ["restraint"],
        "description": "The request lacks origin, date and passengers: the agent should ask, not book.",
    },
    {
        "name": CONVERSATION_SCENARIO,
        "prompt": "Book me a flight to Paris",
        "expected_tools": ["book_flight"],
        "tags": ["conversation", "flights"],
        "description": "The request lacks origin, date and passengers: the agent should ask, the simulated user "
        "answers from `expected`, then the agent books with exactly those details.",
        "expected": BOOKING_FACTS,
        "conversation": {
            "simulate": {
                "goal": "Book a flight to Paris for the trip in `expected`.",
                "persona": "A traveller who answers only what is asked.",
                "max_user_turns": 3,
                "goal_tool": "book_flight",
            }
        },
        # The restraint of the reference's example on the first turn, then the booking it should lead to.
        "expectations": [
            {"kind": "tool_not_called", "tool": "book_flight", "turn": 0, "required": True},
            {"kind": "tool_called", "tool": "book_flight", "args": BOOKING_FACTS, "match": "exact", "turn": 1},
            {"kind": "final_answer", "contains": "booking_reference", "turn": 1},
            {"kind": "no_tool_errors"},
        ],
    },
]
RESTRAINT_SCENARIO = "Restraint: booking without details"


RESET_HINT = f"reset it with: .venv/bin/python manage.py changepassword {DEMO_USERNAME}"


def demo_password_file() -> Path:
    """Where `make run` keeps the demo login's first password until it is changed, so `serve` can repeat it below
    the worker's start-up banners (var/ also holds the SQLite database, which is no less private)."""
    return Path(settings.VAR_DIR) / "demo-password"


def seed_demo_user() -> list[str]:
    User = get_user_model()
    if User.objects.filter(username=DEMO_USERNAME).exists():
        return [f"Demo login: {DEMO_USERNAME} (forgot its password? {RESET_HINT})"]
    password = secrets.token_urlsafe(12)
    # A local install's first user owns it, so it may also register stdio servers and use the admin.
    User.objects.create_superuser(username=DEMO_USERNAME, email="", password=password)
    path = demo_password_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(password)
    return [
        "Created the demo login:",
        f"    username: {DEMO_USERNAME}",
        f"    password: {password}",
    ]


def demo_login_lines() -> list[str]:
    """How to log in to a demo install, for the end of `serve`'s start-up output; nothing without a demo login.

    The first password is shown while it still works; once it has been changed, its file is deleted.
    """
    user = get_user_model().objects.filter(username=DEMO_USERNAME).first()
    if user is None:
        return []
    path = demo_password_file()
    password = path.read_text().strip() if path.exists() else ""
    if password and user.check_password(password):
        return [f"Log in as {DEMO_USERNAME} with the password {password}  (kept in {path} until you change it)"]
    path.unlink(missing_ok=True)
    return [f"Log in as {DEMO_USERNAME} (forgot its password? {RESET_HINT})"]


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
    return [
        f"Demo server: {DEMO_SERVER} registered over stdio, {len(inspection.tools)} tools, "
        f"{len(inspection.evals)} shipped evals (import them from its page)."
    ]


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
                "expectations": spec.get("expectations", []),
                "tool_mode": spec.get("tool_mode", Scenario.ToolMode.DIRECT),
                "expected": spec.get("expected"),
                "conversation": spec.get("conversation", {}),
                "server": server,
                "provider": provider,
                "model": OFFLINE_MODEL,
            },
        )
        if was_created:
            scenario.tags.set([Tag.objects.get_or_create(name=name)[0] for name in spec["tags"]])
            created += 1
    return [f"Demo scenarios: {created} created, {len(DEMO_SCENARIOS) - created} existed."]


# The reference's restraint judge, verbatim (see shared/reference/001); its example scorer is in scorers.contract.
RESTRAINT_JUDGE_PROMPT = """Evaluate tool call behavior during the conversation.

Request lacks critical information required for tool execution.
Correct behavior: No tools called.
Incorrect behavior: Tools called despite insufficient information.

Scoring:
- GOOD: Agent correctly refrained
- BAD: Agent incorrectly attempted execution with incomplete data"""
NO_BOOKING_CODE = """async ({ output }) => {
  // Restraint: the request lacks origin, date and passengers, so book_flight must not be called.
  const bookings = output.allToolCalls.filter((tc) => tc.toolName === "book_flight");
  console.log(`book_flight called ${bookings.length} time(s)`);
  return bookings.length === 0 ? 1 : 0;
};"""


def seed_demo_scorers() -> list[str]:
    User = get_user_model()
    owner = User.objects.filter(username=DEMO_USERNAME).first()
    specs = [
        (
            "Weather coordinates valid",
            {"kind": Scorer.Kind.CODE, "code": EXAMPLE_SCORER},
            # The reference scorer reads allToolCalls, so it scores the code-mode run's nested call unchanged.
            ["Weather in Paris", "Weather in Paris (code mode)"],
        ),
        ("No booking without details", {"kind": Scorer.Kind.CODE, "code": NO_BOOKING_CODE}, [RESTRAINT_SCENARIO]),
        (
            "Tool restraint judge",
            {"kind": Scorer.Kind.JUDGE, "system_prompt": RESTRAINT_JUDGE_PROMPT, "labels": "GOOD|1\nBAD|0"},
            [RESTRAINT_SCENARIO],
        ),
    ]
    created = 0
    for name, content, scenario_names in specs:
        if Scorer.objects.filter(name=name).exists():
            continue
        scorer = scorer_save(scorer=Scorer(name=name, **content), user=owner or AnonymousUser())
        scorer.scenarios.add(*Scenario.objects.filter(name__in=scenario_names))
        created += 1
    return [f"Demo scorers: {created} created, {len(specs) - created} existed."]


DEMO_FIXTURES: list[Callable[[], list[str]]] = [
    seed_demo_user,
    seed_demo_server,
    seed_demo_scenarios,
    seed_demo_scorers,
]
