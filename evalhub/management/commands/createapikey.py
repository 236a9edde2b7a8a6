"""`manage.py createapikey --user NAME --scopes evaluate:read,evaluate:write [--expires 90d]`: prints the key once."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalhub.api_keys.services import SCOPES, ApiKeyInvalid, api_key_create, parse_expiry


class Command(BaseCommand):
    help = "Create an API key for a user and print it once (only its hash is stored)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="The username the key acts as.")
        parser.add_argument("--scopes", required=True, help=f"Comma-separated, among: {', '.join(SCOPES)}.")
        parser.add_argument("--expires", default="", help="90d, 12h, 2w or a date (2030-01-31); default: never.")
        parser.add_argument("--name", default="", help="What the key is for (default: 'created with createapikey').")

    def handle(self, *args: Any, user: str, scopes: str, expires: str, name: str, **options: Any) -> None:
        account = get_user_model().objects.filter(username=user).first()
        if account is None:
            raise CommandError(f"No user named {user!r}.")
        try:
            expires_at = parse_expiry(expires)
            key, raw = api_key_create(
                user=account,
                name=name or "created with createapikey",
                scopes=[scope.strip() for scope in scopes.split(",") if scope.strip()],
                expires_at=expires_at,
            )
        except (ValueError, ApiKeyInvalid) as exc:
            raise CommandError(str(exc)) from None
        # The key alone on stdout, so `KEY=$(manage.py createapikey …)` works; the rest goes to stderr.
        self.stdout.write(raw)
        until = f"until {key.expires_at:%Y-%m-%d %H:%M} UTC" if key.expires_at else "with no expiry"
        self.stderr.write(
            f"Created API key {key.prefix}… for {account.get_username()} ({', '.join(key.scopes)}), valid {until}. "
            "It is shown only this once."
        )
