"""manage.py createapikey: prints the key once, stores its hash, scopes and expiry."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone

from evalhub.api_keys.models import ApiKey


def create(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("createapikey", *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


@pytest.mark.django_db
class CreateApiKeyTests:
    def test_it_prints_the_key_alone_on_stdout(self, bob: User) -> None:
        raw, note = create("--user", "bob", "--scopes", "evaluate:read,evaluate:write", "--expires", "90d")

        key = ApiKey.objects.get(key_hash=ApiKey.hash(raw))
        assert (key.user, key.scopes) == (bob, ["evaluate:read", "evaluate:write"])
        assert key.expires_at is not None
        assert abs(key.expires_at - (timezone.now() + timedelta(days=90))) < timedelta(minutes=1)
        assert "shown only this once" in note and raw not in note

    def test_it_refuses_an_unknown_scope(self, bob: User) -> None:
        with pytest.raises(CommandError, match="Unknown: evaluate:everything"):
            create("--user", "bob", "--scopes", "evaluate:everything")

    def test_it_refuses_admin_for_a_non_staff_user(self, bob: User) -> None:
        with pytest.raises(CommandError, match="Only staff"):
            create("--user", "bob", "--scopes", "evaluate:admin")

    def test_it_refuses_an_unknown_user_and_a_bad_expiry(self, bob: User) -> None:
        with pytest.raises(CommandError, match="No user named 'nobody'"):
            create("--user", "nobody", "--scopes", "evaluate:read")
        with pytest.raises(CommandError, match="Not an expiry"):
            create("--user", "bob", "--scopes", "evaluate:read", "--expires", "soon")
