"""GET /api/v1/config, and the version and uptime /health carries."""

from __future__ import annotations

import tomllib

import pytest
from django.test import Client, override_settings

from evalhub import __version__
from runs import record_limits
from tests.api.helpers import assert_error
from tests.base import PROJECT_DIR


def test_the_version_is_pyprojects() -> None:
    with open(PROJECT_DIR / "pyproject.toml", "rb") as file:
        assert __version__ == tomllib.load(file)["project"]["version"]


@pytest.mark.django_db
class ConfigTests:
    @override_settings(EVALHUB_DAILY_RUN_QUOTA=7, EVALHUB_WORKER_CONCURRENCY=3)
    def test_it_reports_version_limits_transports_formats_and_features(self, reader_api: Client) -> None:
        body = reader_api.get("/api/v1/config").json()

        assert body["version"] == __version__
        assert body["limits"]["daily_run_quota"] == 7
        assert body["limits"]["worker_concurrency"] == 3
        assert body["limits"]["run_bytes"] == record_limits.RUN_BYTES
        assert body["limits"]["tool_result_bytes"] == record_limits.TOOL_RESULT_BYTES
        assert body["transports"] == ["stdio", "http", "sse"]
        assert "junit" in body["report_formats"] and "json" in body["report_formats"]
        assert "execution" in body["features"]["scenario_levels"]
        assert "judge" in body["features"]["scorer_kinds"]

    def test_it_requires_authentication(self, client: Client) -> None:
        assert_error(client.get("/api/v1/config"), 401, "AUTHENTICATION_REQUIRED")

    def test_it_is_read_only(self, writer_api: Client) -> None:
        assert_error(writer_api.put("/api/v1/config", "{}", content_type="application/json"), 405, "METHOD_NOT_ALLOWED")


@pytest.mark.django_db
class HealthVersionTests:
    def test_both_health_addresses_carry_version_and_uptime(self, client: Client) -> None:
        for address in ("/health", "/api/v1/health"):
            body = client.get(address).json()
            assert body["version"] == __version__
            assert isinstance(body["uptime_seconds"], float) and body["uptime_seconds"] >= 0
