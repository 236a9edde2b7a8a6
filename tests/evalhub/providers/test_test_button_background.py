"""The Test button never holds a web request for long (issue 18, finding 13): a slow provider is tested in the
background while the page polls its models table. Transactional: the pool thread has its own database connection.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.html import escape

from evalhub.providers.models import Provider
from tests.base import make_scripted_provider, wait_until
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion

HTMX = {"HTTP_HX_REQUEST": "true"}
WAIT = 1
# The wait, plus what the request itself costs on a loaded machine; well under the provider's 6 s answer.
BOUND = WAIT + 3


@pytest.fixture(autouse=True)
def short_wait(settings: Any) -> None:
    settings.EVALHUB_WEB_WAIT_SECONDS = WAIT


def text(response: Any) -> str:
    return " ".join(response.content.decode().split())


def recorded_outcome(provider: Provider) -> dict[str, Any]:
    return wait_until(  # type: ignore[no-any-return]
        lambda: (last := Provider.objects.get(pk=provider.pk).last_test) and not last.get("pending") and last,
        timeout=20,
        what="the background test to record its outcome",
    )


@pytest.mark.django_db(transaction=True)
class BackgroundTestButtonTests:
    def test_a_slow_provider_answers_later_and_the_row_polls_until_then(
        self, alice_client: Client, scripted: ScriptedServer
    ) -> None:
        scripted.script(Answer(body=completion(content="O", completion_tokens=1), delay=6))
        provider = make_scripted_provider(scripted.base_url, timeout=20)
        started = time.monotonic()

        response = alice_client.post(f"/settings/providers/{provider.pk}/test/", {"model": "gpt-4o"}, **HTMX)

        assert time.monotonic() - started < BOUND
        html = response.content.decode()
        assert html.lstrip().startswith(
            f'<div id="provider-{provider.pk}-models" class="provider-models" '
            f'hx-get="/settings/providers/{provider.pk}/models/" hx-trigger="every 1s"'
        )
        assert (
            '<span class="spinner"></span> Testing… <span class="muted small">at most 20 s; this row updates by itself'
            in (text(response))
        )
        assert alice_client.get("/health").status_code == 200

        outcome = recorded_outcome(provider)

        assert outcome["ok"] is True and outcome["latency_ms"] >= 6000
        fragment = alice_client.get(f"/settings/providers/{provider.pk}/models/", **HTMX)
        assert "hx-trigger" not in fragment.content.decode()
        ok = f'<span class="badge badge-pass">OK</span> answered in <strong>{outcome["latency_ms"]} ms</strong>'
        assert ok in text(fragment)

    def test_a_second_press_does_not_send_a_second_request(
        self, alice_client: Client, scripted: ScriptedServer
    ) -> None:
        scripted.script(Answer(body=completion(content="O", completion_tokens=1), delay=3))
        provider = make_scripted_provider(scripted.base_url)
        alice_client.post(f"/settings/providers/{provider.pk}/test/", {"model": "gpt-4o"}, **HTMX)

        again = alice_client.post(f"/settings/providers/{provider.pk}/test/", {"model": "gpt-4o"}, **HTMX)

        assert "Testing…" in text(again)
        recorded_outcome(provider)
        assert len(scripted.received) == 1

    def test_a_test_cut_off_by_a_stopped_web_process_says_so(self, alice_client: Client) -> None:
        provider = make_scripted_provider("http://127.0.0.1:9/v1")
        past = timezone.now() - timedelta(minutes=5)
        Provider.objects.filter(pk=provider.pk).update(
            last_test={"pending": True, "model": "gpt-4o", "at": past.isoformat(), "until": past.isoformat()}
        )

        fragment = alice_client.get(f"/settings/providers/{provider.pk}/models/", **HTMX)

        assert "hx-trigger" not in fragment.content.decode()
        failed = '<span class="badge badge-fail">failed</span> ' + escape(
            "the test did not finish: EvalHub's web process stopped during it; test again"
        )
        assert failed in text(fragment)
