from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from evalhub.scenarios.models import Scenario, Tag
from runs.models import Run
from runs.tasks import rescore_runs
from runs.views import PAGE_SIZE
from tests.base import make_demo_server, make_scenario


@pytest.fixture
def scenario(db: None) -> Scenario:
    return make_scenario(make_demo_server())


def make_run(scenario: Scenario, **fields: object) -> Run:
    defaults: dict[str, object] = {
        "model": "evalhub-offline",
        "status": "done",
        "score": 1.0,
        "passed": True,
        "started_at": timezone.now(),
    }
    fields = {**defaults, **fields}
    # A finished run is judged (runs.run_verdict); a test that names no verdict gets the one `passed` says.
    if fields["status"] == "done" and "verdict" not in fields:
        fields["verdict"] = {True: "pass", False: "fail"}.get(fields["passed"], "inconclusive")  # type: ignore[call-overload]
    return Run.objects.create(scenario=scenario, **fields)


@pytest.mark.django_db
class RunListTests:
    def test_it_lists_runs_newest_first_with_their_tools_and_cost(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        make_run(scenario, score=0.5, passed=False)
        newest = make_run(scenario, tool_names=["get_weather", "search_flights"])

        html = alice_client.get("/runs/").content.decode()

        assert html.index(f'id="run-{newest.pk}"') < html.index("fail 0.50")
        assert "get_weather → search_flights" in html
        # No model call recorded: the run never reached the model, which is not an unknown price.
        assert "no model call" in html and "unknown" not in html

    def test_filters_narrow_the_list(self, alice_client: Client, scenario: Scenario) -> None:
        other = make_scenario(scenario.server, name="Other")
        other.tags.add(Tag.objects.create(name="smoke"))
        passed = make_run(scenario)
        failed = make_run(other, score=0.0, passed=False, model="gpt-4o")
        old = make_run(scenario)
        Run.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=3))

        def ids(query: str) -> list[int]:
            return [run.pk for run in alice_client.get(f"/runs/?{query}").context["page"]]

        assert ids("passed=no") == [failed.pk]
        assert ids(f"scenario={scenario.pk}") == [passed.pk, old.pk]
        assert ids("model=gpt-4o") == [failed.pk]
        assert ids("tag=smoke") == [failed.pk]
        assert ids(f"date_from={(timezone.now() - timedelta(days=1)).date()}") == [failed.pk, passed.pk]
        assert ids("status=queued") == []
        assert ids("date_from=not-a-date") == [failed.pk, passed.pk, old.pk]

    def test_verdict_and_cause_filters_narrow_the_list(self, alice_client: Client, scenario: Scenario) -> None:
        passed = make_run(scenario)
        server = make_run(scenario, score=0.4, passed=False, failure_cause="server")
        outage = make_run(scenario, score=None, passed=None, verdict="inconclusive", failure_cause="provider")

        def ids(query: str) -> list[int]:
            return [run.pk for run in alice_client.get(f"/runs/?{query}").context["page"]]

        assert ids("verdict=inconclusive") == [outage.pk]
        assert ids("verdict=fail") == [server.pk]
        assert ids("cause=server") == [server.pk]
        assert ids("verdict=pass&cause=server") == []
        # Unknown values are ignored, as the other filters do; the older pass/fail filter still works.
        assert ids("verdict=maybe&cause=nobody") == [outage.pk, server.pk, passed.pk]
        assert ids("passed=yes") == [passed.pk]
        html = alice_client.get("/runs/?verdict=fail&cause=server&passed=no").content.decode()
        assert '<option value="fail" selected>fail</option>' in html
        assert '<option value="server" selected>server</option>' in html
        assert '<input type="hidden" name="passed" value="no">' in html

    def test_each_run_shows_its_verdict_badge_with_the_cause_and_the_reason_escaped(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        make_run(scenario, score=0.92)
        failed = make_run(
            scenario,
            score=0.4,
            passed=False,
            failure_cause="server",
            failure_reason='server: get_weather returned an error on 3 of 3 calls <img src=x onerror="x">',
        )
        make_run(
            scenario,
            score=0.2,
            passed=None,
            verdict="inconclusive",
            failure_cause="provider",
            failure_reason="provider: 429 after 4 attempts in 7 s",
        )

        html = alice_client.get("/runs/").content.decode()

        assert '<span class="badge badge-pass verdict-badge" data-verdict="pass"' in html
        assert '><span class="verdict-main">pass 0.92</span></span>' in html
        assert (
            '<span class="badge badge-fail verdict-badge" data-verdict="fail" title="server: get_weather returned an '
            'error on 3 of 3 calls &lt;img src=x onerror=&quot;x&quot;&gt;">'
            '<span class="verdict-main">fail 0.40</span> <span class="verdict-cause">· server</span></span>'
        ) in html
        # An outage decided nothing: amber, no score, never red.
        assert (
            '<span class="badge badge-warn verdict-badge" data-verdict="inconclusive" '
            'title="provider: 429 after 4 attempts in 7 s">'
            '<span class="verdict-main">inconclusive</span> <span class="verdict-cause">· provider</span></span>'
        ) in html
        assert f'<tr id="run-{failed.pk}"' in html and "<img src=x" not in html

    def test_htmx_polling_gets_only_the_table_and_polls_while_runs_are_active(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        make_run(scenario, status="running", score=None, passed=None)

        response = alice_client.get("/runs/", HTTP_HX_REQUEST="true")

        html = response.content.decode()
        assert html.lstrip().startswith('<div id="runs-table"')
        assert "<html" not in html
        assert 'hx-trigger="evalhub:live"' in html and 'data-live-events="type=run.queued&amp;' in html

    def test_the_first_page_follows_new_runs_even_when_every_listed_run_has_finished(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        make_run(scenario)

        html = alice_client.get("/runs/").content.decode()
        filtered = alice_client.get(f"/runs/?scenario={scenario.pk}").content.decode()

        # A run started elsewhere (CLI, API, another tab) appears by itself (issue 25, minor 2).
        assert (
            'data-live-events="type=run.queued&amp;type=run.started&amp;type=run.finished&amp;type=run.scored"' in html
        )
        assert f'type=run.scored&amp;scenario={scenario.pk}"' in filtered

    def test_with_no_runs_yet_the_page_follows_for_the_first(self, alice_client: Client, scenario: Scenario) -> None:
        html = alice_client.get("/runs/").content.decode()
        assert "No runs yet" in html and '<div id="runs-table" hx-get="/runs/" hx-trigger="evalhub:live"' in html

        make_run(scenario)
        fragment = alice_client.get("/runs/", HTTP_HX_REQUEST="true").content.decode()
        assert fragment.lstrip().startswith('<div id="runs-table"') and "pass 1.00" in fragment

    def test_a_later_page_of_finished_runs_does_not_follow(self, alice_client: Client, scenario: Scenario) -> None:
        for _ in range(PAGE_SIZE + 1):
            make_run(scenario)
        assert "hx-trigger" not in alice_client.get("/runs/?page=2").content.decode()

    def test_a_page_costs_a_constant_number_of_queries(self, alice_client: Client, scenario: Scenario) -> None:
        make_run(scenario)
        with CaptureQueriesContext(connection) as few:
            alice_client.get("/runs/")
        for _ in range(30):
            make_run(make_scenario(scenario.server, name=f"S{_}"))
        with CaptureQueriesContext(connection) as many:
            alice_client.get("/runs/")

        assert len(many) == len(few)

    def test_it_requires_login(self, client: Client) -> None:
        assert client.get("/runs/").status_code == 302


@pytest.mark.django_db
class RunDetailTests:
    def test_it_shows_the_record(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(
            scenario,
            transcript={
                "prompt": "Weather?",
                "steps": [
                    {
                        "text": "",
                        "finishReason": "tool_calls",
                        "toolCalls": [{"toolName": "get_weather", "args": {"latitude": 1}}],
                        "toolResults": [
                            {"toolName": "get_weather", "result": {"content": [{"type": "text", "text": "Sunny"}]}}
                        ],
                    }
                ],
                "finalText": "It is sunny.",
            },
            all_tool_calls=[
                {
                    "toolName": "get_weather",
                    "args": {"latitude": 1},
                    "result": {"content": [{"type": "text", "text": "Sunny"}]},
                    "timestamp": 1,
                    "durationMs": 12,
                    "isError": False,
                    "nestedCalls": [],
                    "schemaValidation": {"valid": False, "message": "structuredContent at (root): bad"},
                }
            ],
            stop_reason="completed",
        )

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert "It is sunny." in html and "Weather?" in html
        assert "schema invalid" in html and "structuredContent at (root): bad" in html
        assert "hx-trigger" not in html

    def test_a_running_run_polls_and_offers_cancel(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, status="running", score=None, passed=None, heartbeat_at=timezone.now())

        response = alice_client.get(f"/runs/{run.pk}/", HTTP_HX_REQUEST="true")

        html = response.content.decode()
        assert html.lstrip().startswith('<div id="run-body"') and f'data-live-events="run={run.pk}"' in html
        assert f'action="/runs/{run.pk}/cancel/"' in html

    def test_after_re_score_it_polls_until_the_worker_has_scored(
        self, alice_client: Client, scenario: Scenario, django_capture_on_commit_callbacks: Any
    ) -> None:
        run = make_run(scenario)
        with django_capture_on_commit_callbacks() as queued:  # the task is run below, as the worker would
            alice_client.post(f"/runs/{run.pk}/rescore/")
        assert len(queued) == 1

        waiting = alice_client.get(f"/runs/{run.pk}/", HTTP_HX_REQUEST="true").content.decode()
        assert f'data-live-events="run={run.pk}"' in waiting and "Re-scoring with the current scorers" in waiting
        assert "disabled" in re.search(r"<button[^>]*>Re-score</button>", waiting)[0]  # type: ignore[index]

        rescore_runs([run.pk])

        done = alice_client.get(f"/runs/{run.pk}/", HTTP_HX_REQUEST="true").content.decode()
        assert "data-live-events" not in done and "Re-scoring with the current scorers" not in done
        assert run.score_results.get(is_current=True).scorer_name in done
        run.refresh_from_db()
        assert run.rescore_requested_at is None

    def test_an_error_names_its_step(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(
            scenario,
            status="error",
            error={"step": "connect", "kind": "command_not_found", "message": "No such command."},
        )

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert "Failed at step “connect”" in html and "No such command." in html

    def test_cancel_is_a_post(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, status="queued", score=None, passed=None)

        assert alice_client.get(f"/runs/{run.pk}/cancel/").status_code == 405
        alice_client.post(f"/runs/{run.pk}/cancel/")

        run.refresh_from_db()
        assert run.status == "cancelled"

    def test_an_unknown_run_is_404(self, alice_client: Client) -> None:
        assert alice_client.get("/runs/999999/").status_code == 404


@pytest.mark.django_db
class RunListPaginationTests:
    def test_walking_every_page_gives_every_run_once_newest_first(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        # Pages near the end are read from the end of the index: both directions must agree with a plain query.
        runs = Run.objects.bulk_create(
            Run(scenario=scenario, model="m", status="done", score=1.0, passed=i % 3 != 0) for i in range(2 * 50 + 7)
        )
        Run.objects.filter(pk__in=[r.pk for r in runs[:40]]).update(created_at=timezone.now() - timedelta(hours=1))

        def walk(query: str) -> list[int]:
            pages = alice_client.get(f"/runs/?{query}").context["page"].paginator.num_pages
            return [
                run.pk
                for number in range(1, pages + 1)
                for run in alice_client.get(f"/runs/?{query}&page={number}").context["page"]
            ]

        expected = list(Run.objects.order_by("-created_at", "-id").values_list("pk", flat=True))
        assert walk("") == expected
        assert walk("passed=no") == [pk for pk in expected if not Run.objects.get(pk=pk).passed]
