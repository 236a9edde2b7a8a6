"""The demo that `make run` seeds. Each fixture is idempotent: it creates what is missing and leaves the rest alone.

Add a fixture here when a feature lands (a demo MCP server, scenarios, scorers) and append it to DEMO_FIXTURES.
Each returns the lines to print, so the seeding command reports what it did.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.contrib.auth import get_user_model

DEMO_USERNAME = "demo"


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


DEMO_FIXTURES: list[Callable[[], list[str]]] = [seed_demo_user]
