from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings
from django.test import Client

from evalhub.celery import app as celery_app
from evalhub.models import WorkerHeartbeat


@pytest.fixture
def unreachable_broker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # A real connection attempt to a port nothing listens on. Celery reads CELERY_BROKER_URL from the
    # environment before its own configuration, so both are pointed there.
    original = celery_app.conf.broker_url
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:1/0")
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        yield
    finally:
        celery_app.conf.broker_url = original


@pytest.mark.django_db
class HealthTests:
    def test_it_reports_database_and_broker_without_login(self, client: Client) -> None:
        response = client.get("/health")

        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "ok"
        assert body["checks"]["database"]["status"] == "ok"
        assert body["checks"]["database"]["engine"] in {"sqlite", "postgresql"}
        assert body["checks"]["broker"]["status"] == "ok"
        assert body["checks"]["broker"]["transport"] in {"filesystem", "redis", "amqp"}
        assert body["worker"] == {"status": "unknown", "last_seen": None}

    def test_it_reveals_no_configuration(self, client: Client) -> None:
        text = client.get("/health").content.decode()

        assert settings.SECRET_KEY not in text
        assert str(settings.DATABASES["default"]["NAME"]) not in text
        assert celery_app.conf.broker_url not in text

    def test_it_shows_when_a_worker_was_last_seen(self, client: Client) -> None:
        WorkerHeartbeat.record("celery@box")

        assert client.get("/health").json()["worker"]["status"] == "ok"

    def test_it_answers_503_when_the_broker_is_unreachable(self, client: Client, unreachable_broker: None) -> None:
        response = client.get("/health")

        assert response.status_code == 503
        body = response.json()
        assert body["status"] == "error"
        assert body["checks"]["broker"]["status"] == "error"
        assert body["checks"]["database"]["status"] == "ok"

    def test_it_rejects_post(self, client: Client) -> None:
        assert client.post("/health").status_code == 405
