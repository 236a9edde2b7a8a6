"""/api/v1/quota, /health, /metrics, /metrics/prometheus and /providers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from evalhub.models import WorkerHeartbeat
from evalhub.providers.models import Provider
from runs.models import Run
from runs.quota import reserve_run
from tests.api.helpers import assert_error
from tests.api.records import finished_run
from tests.base import make_demo_server, make_scenario


@pytest.mark.django_db
class QuotaTests:
    @override_settings(EVALHUB_DAILY_RUN_QUOTA=5)
    def test_it_reports_used_limit_and_reset(self, reader_api: Client) -> None:
        reserve_run()

        body = reader_api.get("/api/v1/quota").json()

        assert (body["used"], body["limit"], body["remaining"]) == (1, 5, 4)
        assert body["resets_at"].endswith(("T00:00:00Z", "T00:00:00+00:00"))

    def test_it_requires_authentication(self, client: Client) -> None:
        assert_error(client.get("/api/v1/quota"), 401, "AUTHENTICATION_REQUIRED")


@pytest.mark.django_db
class HealthTests:
    def test_it_answers_without_authentication(self, client: Client) -> None:
        WorkerHeartbeat.record("celery@box")

        body = client.get("/api/v1/health").json()

        assert body["status"] == "ok"
        assert body["checks"]["database"]["status"] == "ok"
        assert body["worker"]["status"] == "ok"


@pytest.mark.django_db
class MetricsTests:
    def test_it_summarises_runs_in_the_window(self, reader_api: Client) -> None:
        scenario = make_scenario(make_demo_server())
        finished_run(scenario, score=1.0, passed=True, duration_ms=1000)
        finished_run(scenario, score=0.5, passed=False, duration_ms=3000)
        old = finished_run(scenario, score=0.0, passed=False)
        Run.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=3))
        Run.objects.create(scenario=scenario, model="m")
        finished_run(
            scenario,
            score=None,
            passed=None,
            status=Run.Status.ERROR,
            verdict="inconclusive",
            failure_cause="provider",
            failure_reason="provider: 429 after 4 attempts",
            cost_usd=None,
            started_at=None,
            duration_ms=None,
        )

        body = reader_api.get("/api/v1/metrics?window=24h").json()

        assert body["runs"] == {
            "total": 4,
            "by_status": {"queued": 1, "running": 0, "done": 2, "error": 1, "cancelled": 0},
        }
        # The outage counts neither way: the pass rate is of the two decided runs.
        assert (body["passed"], body["failed"], body["inconclusive"]) == (1, 1, 1)
        assert (body["pass_rate"], body["average_score"]) == (0.5, 0.75)
        assert body["failure_causes"] == {
            "agent": 1,
            "server": 0,
            "provider": 1,
            "judge": 0,
            "simulator": 0,
            "budget": 0,
            "harness": 0,
            "review": 0,
        }
        assert body["cost_usd"]["total"] == 0.0024
        assert body["duration_ms"]["average"] == 2000
        assert reader_api.get("/api/v1/metrics?window=7d").json()["runs"]["total"] == 5

    def test_a_bad_window_is_a_validation_error(self, reader_api: Client) -> None:
        error = assert_error(reader_api.get("/api/v1/metrics?window=forever"), 400, "VALIDATION_ERROR")

        assert error["details"]["errors"][0]["loc"] == ["query", "window"]

    def test_prometheus_text(self, reader_api: Client) -> None:
        finished_run(make_scenario(make_demo_server()), score=1.0, passed=True)

        response = reader_api.get("/api/v1/metrics/prometheus")

        assert response["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.content.decode()
        assert "# TYPE evalhub_runs gauge" in text
        assert 'evalhub_runs{window="24h",status="done"} 1' in text
        assert 'evalhub_runs_pass_rate{window="24h"} 1.0' in text
        assert 'evalhub_runs_verdict{window="24h",verdict="pass"} 1' in text
        assert 'evalhub_runs_verdict{window="24h",verdict="inconclusive"} 0' in text
        assert 'evalhub_runs_failure_cause{window="24h",cause="server"} 0' in text
        assert "evalhub_quota_limit 100" in text


@pytest.mark.django_db
class ProviderListTests:
    def test_it_lists_models_and_only_the_names_of_secrets(self, reader_api: Client) -> None:
        provider = Provider(name="Acme", base_url="https://llm.example.com/v1", model_names=["acme-1"])
        provider.set_secrets(api_key="sk-SECRET", headers={})
        provider.save()

        response = reader_api.get("/api/v1/providers")

        items = {p["name"]: p for p in response.json()["items"]}
        assert items["Acme"]["secret_names"] == ["API key"]
        assert items["EvalHub offline"]["model_names"] == ["evalhub-offline"]
        assert "SECRET" not in response.content.decode()


@pytest.mark.django_db
class NulCharacterTests:
    """PostgreSQL refuses NUL in text; the API must answer 400 with the envelope, not 500 (found by schemathesis)."""

    def test_a_nul_in_a_query_parameter_is_a_validation_error(self, reader_api: Client) -> None:
        response = reader_api.get("/api/v1/scenarios?tag=a%00b")

        assert response.status_code == 400
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
        assert "NUL" in response.json()["error"]["message"]

    def test_the_runs_page_ignores_a_nul_in_its_filters(self, alice_client: Client) -> None:
        assert alice_client.get("/runs/?tag=a%00b&model=%00").status_code == 200
