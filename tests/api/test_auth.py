"""Authentication, scopes, rate limits and the error envelope, on every kind of failure."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.utils import timezone

from evalhub.api_keys.models import ApiKey
from tests.api.conftest import KeyClient
from tests.api.helpers import assert_error


@pytest.mark.django_db
class ApiKeyAuthTests:
    def test_it_requires_a_key(self, client: Client) -> None:
        error = assert_error(client.get("/api/v1/servers"), 401, "AUTHENTICATION_REQUIRED")

        assert "Bearer" in error["message"]

    def test_it_answers_401_not_a_login_redirect_for_writes_too(self, client: Client) -> None:
        response = client.post("/api/v1/runs", {"tag": "smoke"}, content_type="application/json")

        assert_error(response, 401, "AUTHENTICATION_REQUIRED")
        assert response["WWW-Authenticate"].startswith("Bearer")

    def test_it_rejects_an_unknown_key(self) -> None:
        client = Client(headers={"Authorization": "Bearer ehk_not-a-real-key"})

        error = assert_error(client.get("/api/v1/servers"), 401, "AUTHENTICATION_REQUIRED")

        assert "not valid" in error["message"]

    def test_it_rejects_a_revoked_key_saying_so(self, alice: User) -> None:
        key, raw = ApiKey.issue(user=alice, name="ci", scopes=["evaluate:read"])
        key.revoked_at = timezone.now()
        key.save()

        response = Client(headers={"Authorization": f"Bearer {raw}"}).get("/api/v1/servers")

        assert "revoked" in assert_error(response, 401, "AUTHENTICATION_REQUIRED")["message"]

    def test_it_rejects_an_expired_key_saying_so(self, alice: User, make_client: KeyClient) -> None:
        client = make_client(alice, "evaluate:read", expires_at=timezone.now() - timedelta(minutes=1))

        assert "expired" in assert_error(client.get("/api/v1/servers"), 401, "AUTHENTICATION_REQUIRED")["message"]

    def test_it_rejects_the_key_of_a_deactivated_account(self, bob: User, make_client: KeyClient) -> None:
        client = make_client(bob, "evaluate:read")
        bob.is_active = False
        bob.save()

        assert_error(client.get("/api/v1/servers"), 401, "AUTHENTICATION_REQUIRED")

    def test_it_records_when_a_key_was_last_used(self, alice: User) -> None:
        key, raw = ApiKey.issue(user=alice, name="ci", scopes=["evaluate:read"])

        response = Client(headers={"Authorization": f"Bearer {raw}"}).get("/api/v1/servers")

        assert response.status_code == 200
        key.refresh_from_db()
        assert key.last_used_at is not None
        assert timezone.now() - key.last_used_at < timedelta(seconds=10)

    def test_a_key_without_the_scope_gets_403(self, reader_api: Client) -> None:
        response = reader_api.post("/api/v1/runs", {"tag": "smoke"}, content_type="application/json")

        error = assert_error(response, 403, "INSUFFICIENT_PERMISSIONS")
        assert error["details"] == {"required_scope": "evaluate:write", "scopes": ["evaluate:read"]}

    def test_reports_need_the_export_scope(self, bob: User, make_client: KeyClient) -> None:
        client = make_client(bob, "evaluate:read", "evaluate:write")

        assert_error(client.get("/api/v1/runs/report?format=csv"), 403, "INSUFFICIENT_PERMISSIONS")

    def test_the_key_is_never_stored_in_clear(self, alice: User) -> None:
        key, raw = ApiKey.issue(user=alice, name="ci", scopes=["evaluate:read"])

        assert raw not in str(ApiKey.objects.filter(pk=key.pk).values().get())


@pytest.mark.django_db
class SessionAuthTests:
    def test_a_logged_in_user_reads_with_the_session(self, bob_client: Client) -> None:
        assert bob_client.get("/api/v1/servers").status_code == 200

    def test_writes_from_the_session_need_the_csrf_token(self, bob: User) -> None:
        client = Client(enforce_csrf_checks=True)
        client.force_login(bob)

        response = client.post("/api/v1/runs", {"tag": "smoke"}, content_type="application/json")

        assert "CSRF" in assert_error(response, 403, "INSUFFICIENT_PERMISSIONS")["message"]

    def test_writes_from_the_session_pass_with_the_csrf_token(self, bob: User) -> None:
        client = Client(enforce_csrf_checks=True)
        client.force_login(bob)
        client.get("/scenarios/")  # sets the csrftoken cookie as any page does
        token = client.cookies["csrftoken"].value

        response = client.post(
            "/api/v1/runs", {"tag": "smoke"}, content_type="application/json", headers={"X-CSRFToken": token}
        )

        # Past authentication and CSRF: the request itself is what is wrong (no such tag).
        assert_error(response, 400, "VALIDATION_ERROR")

    def test_a_bearer_key_needs_no_csrf_token(self, bob: User, make_client: KeyClient) -> None:
        client = make_client(bob, "evaluate:read", "evaluate:write")
        client.handler.enforce_csrf_checks = True

        response = client.post("/api/v1/runs", {"tag": "smoke"}, content_type="application/json")

        assert_error(response, 400, "VALIDATION_ERROR")


@pytest.mark.django_db
class RateLimitTests:
    def test_every_answer_carries_the_rate_limit_headers(self, reader_api: Client) -> None:
        first = reader_api.get("/api/v1/quota")
        second = reader_api.get("/api/v1/quota")

        assert first["X-RateLimit-Limit"] == "600"
        assert int(first["X-RateLimit-Remaining"]) == int(second["X-RateLimit-Remaining"]) + 1
        assert int(first["X-RateLimit-Reset"]) > timezone.now().timestamp()

    @override_settings(EVALHUB_API_RATE_LIMIT=3)
    def test_it_answers_429_past_the_limit_with_retry_after(self, reader_api: Client) -> None:
        for _ in range(3):
            assert reader_api.get("/api/v1/quota").status_code == 200

        response = reader_api.get("/api/v1/quota")

        assert_error(response, 429, "RATE_LIMIT_EXCEEDED")
        assert response["X-RateLimit-Remaining"] == "0"
        assert 0 < int(response["Retry-After"]) <= 60

    @override_settings(EVALHUB_API_RATE_LIMIT=2)
    def test_each_key_and_each_login_has_its_own_allowance(
        self, alice: User, bob: User, make_client: KeyClient, bob_client: Client
    ) -> None:
        first, second = make_client(alice, "evaluate:read"), make_client(alice, "evaluate:read")
        for _ in range(2):
            first.get("/api/v1/quota")

        assert first.get("/api/v1/quota").status_code == 429
        assert second.get("/api/v1/quota").status_code == 200
        assert bob_client.get("/api/v1/quota").status_code == 200
        assert bob_client.get("/api/v1/quota")["X-RateLimit-Remaining"] == "0"


@pytest.mark.django_db
class ErrorEnvelopeTests:
    def test_an_unknown_endpoint_is_a_404_envelope(self, reader_api: Client) -> None:
        assert_error(reader_api.get("/api/v1/no-such-thing"), 404, "RESOURCE_NOT_FOUND")

    def test_an_unknown_endpoint_is_a_404_envelope_without_login_too(self, client: Client) -> None:
        assert_error(client.get("/api/v1/no/such/thing"), 404, "RESOURCE_NOT_FOUND")

    def test_a_missing_record_is_a_404_envelope(self, reader_api: Client) -> None:
        error = assert_error(reader_api.get("/api/v1/runs/999999"), 404, "RESOURCE_NOT_FOUND")

        assert error["details"] == {"resource": "Run", "id": 999999}

    def test_ninjas_own_validation_errors_use_the_envelope(self, reader_api: Client) -> None:
        error = assert_error(reader_api.get("/api/v1/runs?limit=0"), 400, "VALIDATION_ERROR")

        assert error["details"]["errors"][0]["loc"] == ["query", "limit"]

    def test_a_body_that_is_not_json_is_a_400_envelope(self, admin_api: Client) -> None:
        response = admin_api.post("/api/v1/runs", "{not json", content_type="application/json")

        assert_error(response, 400, "VALIDATION_ERROR")

    def test_a_wrong_method_is_405(self, reader_api: Client) -> None:
        response = reader_api.put("/api/v1/quota")

        assert_error(response, 405, "METHOD_NOT_ALLOWED")
        assert response["Allow"] == "GET"


@pytest.mark.django_db
class DocsTests:
    def test_the_openapi_schema_and_docs_are_served(self, client: Client) -> None:
        schema = client.get("/api/v1/openapi.json").json()

        assert schema["info"]["title"] == "EvalHub API"
        assert "/api/v1/runs/{run_id}/report" in schema["paths"]
        assert client.get("/api/v1/docs").status_code == 200


@pytest.mark.django_db
class OddPathTests:
    def test_a_path_with_a_line_break_is_still_a_404_envelope(self, admin_api: Client) -> None:
        assert_error(admin_api.get("/api/v1/runs/%0Az/report"), 404, "RESOURCE_NOT_FOUND")
        assert_error(admin_api.delete("/api/v1/scenarios/%0Az"), 404, "RESOURCE_NOT_FOUND")

    def test_an_id_too_large_for_the_database_is_a_validation_error(self, admin_api: Client) -> None:
        huge = 2**70

        assert_error(admin_api.get(f"/api/v1/runs?ids={huge}"), 400, "VALIDATION_ERROR")
        response = admin_api.post("/api/v1/runs", {"scenario_ids": [huge]}, content_type="application/json")
        assert_error(response, 400, "VALIDATION_ERROR")

    def test_a_scalar_parameter_given_twice_is_a_validation_error(self, reader_api: Client) -> None:
        error = assert_error(reader_api.get("/api/v1/runs?status=done&status=error"), 400, "VALIDATION_ERROR")

        assert error["details"]["repeated"] == ["status"]

    def test_a_number_is_not_a_date(self, reader_api: Client) -> None:
        assert_error(reader_api.get("/api/v1/runs?date_to=0"), 400, "VALIDATION_ERROR")

    def test_too_many_query_parameters_is_a_validation_error(self, reader_api: Client) -> None:
        query = "&".join(f"ids={n}" for n in range(1, 1200))

        assert_error(reader_api.get(f"/api/v1/runs?{query}"), 400, "VALIDATION_ERROR")
