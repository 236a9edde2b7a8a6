"""Settings → API keys: create (shown once), list, revoke."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalhub.api_keys.models import ApiKey


@pytest.mark.django_db
class ApiKeyPageTests:
    def test_it_lists_only_my_keys(self, alice: User, bob: User, bob_client: Client) -> None:
        ApiKey.issue(user=alice, name="alice's CI", scopes=["evaluate:read"])
        ApiKey.issue(user=bob, name="bob's script", scopes=["evaluate:read"])

        text = bob_client.get(reverse("api_keys")).content.decode()

        assert "bob&#x27;s script" in text and "alice" not in text.split('id="api-keys"')[1]

    def test_it_creates_a_key_and_shows_it_once(self, bob: User, bob_client: Client) -> None:
        response = bob_client.post(
            reverse("api_keys"), {"name": "CI", "scopes": ["evaluate:read", "evaluate:write"], "expires": "30d"}
        )

        assert response.status_code == 201
        assert response["Cache-Control"] == "no-store"
        key = ApiKey.objects.get(user=bob)
        raw = response.context["new_raw_key"]
        assert ApiKey.hash(raw) == key.key_hash
        assert raw in response.content.decode()
        assert (key.name, key.scopes) == ("CI", ["evaluate:read", "evaluate:write"])
        assert key.expires_at is not None
        assert raw not in bob_client.get(reverse("api_keys")).content.decode()

    def test_a_key_without_expiry_never_expires(self, bob: User, bob_client: Client) -> None:
        bob_client.post(reverse("api_keys"), {"name": "CI", "scopes": ["evaluate:read"], "expires": ""})

        assert ApiKey.objects.get(user=bob).expires_at is None

    def test_only_staff_may_create_admin_keys(self, bob_client: Client, alice_client: Client) -> None:
        data = {"name": "admin", "scopes": ["evaluate:admin"], "expires": "7d"}

        response = bob_client.post(reverse("api_keys"), data)

        assert response.status_code == 200
        assert "scopes" in response.context["form"].errors
        assert not ApiKey.objects.exists()
        assert alice_client.post(reverse("api_keys"), data).status_code == 201

    def test_it_needs_a_name_and_a_scope(self, bob_client: Client) -> None:
        response = bob_client.post(reverse("api_keys"), {"name": "", "expires": "7d"})

        assert set(response.context["form"].errors) == {"name", "scopes"}

    def test_it_revokes_my_key(self, bob: User, bob_client: Client) -> None:
        key, _ = ApiKey.issue(user=bob, name="CI", scopes=["evaluate:read"])

        response = bob_client.post(reverse("api_key_revoke", args=[key.pk]), follow=True)

        key.refresh_from_db()
        assert key.revoked_at is not None
        assert "Revoked “CI”" in response.content.decode()

    def test_it_does_not_revoke_someone_elses_key(self, alice: User, bob_client: Client) -> None:
        key, _ = ApiKey.issue(user=alice, name="CI", scopes=["evaluate:read"])

        assert bob_client.post(reverse("api_key_revoke", args=[key.pk])).status_code == 404
        key.refresh_from_db()
        assert key.revoked_at is None

    def test_it_requires_login(self, client: Client) -> None:
        assert client.get(reverse("api_keys")).status_code == 302
