"""The scenario list's and page's last score while runs finish: the previous score stays, the new one replaces
it once scored, and the cell or section is refreshed by the live events of the scenario's runs (new ones too)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from evalhub.scenarios.models import Scenario
from runs.models import Run
from tests.base import make_demo_server, make_scenario


@pytest.fixture
def scenario(db: None) -> Scenario:
    return make_scenario(make_demo_server())


def cell(client: Client, scenario: Scenario) -> str:
    html = client.get(f"/scenarios/{scenario.pk}/last-score/").content.decode()
    assert html.lstrip().startswith(f'<td id="last-score-{scenario.pk}"')
    return html


@pytest.mark.django_db
class LastScoreTests:
    def test_the_previous_score_stays_while_a_newer_run_is_under_way(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        done = Run.objects.create(scenario=scenario, model="m", status="done", score=0.5, passed=False, verdict="fail")
        newer = Run.objects.create(scenario=scenario, model="m", status="queued")

        listed = alice_client.get("/scenarios/").content.decode()
        polled = cell(alice_client, scenario)

        for html in (listed, polled):
            badge = (
                '<span class="badge badge-fail verdict-badge" data-verdict="fail">'
                '<span class="verdict-main">fail 0.50</span></span>'
            )
            assert f'<a href="/runs/{done.pk}/">{badge}</a>' in html
            assert f'href="/runs/{newer.pk}/"' in html and "queued</span>" in html
            assert f'hx-get="/scenarios/{scenario.pk}/last-score/" hx-trigger="evalhub:live"' in html
            assert "data-live-active" in html

        Run.objects.filter(pk=newer.pk).update(status="done", score=1.0, passed=True, verdict="pass")
        finished = cell(alice_client, scenario)

        assert "pass 1.00" in finished and "fail 0.50" not in finished and "data-live-active" not in finished
        # The list follows every scenario's runs on one stream, and refreshes only the row of the event's scenario.
        assert (
            '<tbody id="scenario-rows" data-live-events="type=run.queued&amp;type=run.started&amp;type=run.finished'
            '&amp;type=run.scored" data-live-each="last-score-">' in listed
        )

    def test_a_latest_run_without_a_verdict_is_named_beside_the_last_verdict(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        Run.objects.create(scenario=scenario, model="m", status="done", score=1.0, passed=True, verdict="pass")
        cancelled = Run.objects.create(scenario=scenario, model="m", status="cancelled")

        html = cell(alice_client, scenario)

        assert "pass 1.00" in html and f'href="/runs/{cancelled.pk}/"' in html and "cancelled</span>" in html

    def test_a_run_that_ended_in_an_error_shows_its_verdict_and_cause(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        Run.objects.create(scenario=scenario, model="m", status="done", score=1.0, passed=True, verdict="pass")
        crashed = Run.objects.create(
            scenario=scenario,
            model="m",
            status="error",
            passed=False,
            verdict="fail",
            failure_cause="server",
            failure_reason="server: <b>exited</b> with code 1",
        )

        html = cell(alice_client, scenario)

        assert f'href="/runs/{crashed.pk}/"' in html and "pass 1.00" not in html
        assert (
            'title="server: &lt;b&gt;exited&lt;/b&gt; with code 1">'
            '<span class="verdict-main">fail</span> <span class="verdict-cause">· server</span></span>' in html
        )

    def test_a_skipped_judge_is_inconclusive_never_a_red_fail(self, alice_client: Client, scenario: Scenario) -> None:
        Run.objects.create(
            scenario=scenario,
            model="m",
            status="done",
            score=None,
            passed=None,
            verdict="inconclusive",
            failure_cause="judge",
            failure_reason="judge: every scorer was skipped, so nothing decided",
        )

        html = alice_client.get("/scenarios/").content.decode()

        assert "<th>Last verdict</th>" in html
        assert (
            '<span class="badge badge-warn verdict-badge" data-verdict="inconclusive" '
            'title="judge: every scorer was skipped, so nothing decided">'
            '<span class="verdict-main">inconclusive</span> <span class="verdict-cause">· judge</span></span>'
        ) in html
        assert "badge-fail" not in html and "fail —" not in html

    def test_the_scenario_page_follows_its_scenarios_runs_new_ones_too(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        Run.objects.create(scenario=scenario, model="m", status="done", score=0.5, passed=False, verdict="fail")
        following = 'hx-trigger="evalhub:live" hx-swap="outerHTML" data-live-events="type=run.queued&amp;'

        page = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()
        assert following in page and f'&amp;type=run.scored&amp;scenario={scenario.pk}"' in page

        Run.objects.create(scenario=scenario, model="m", status="done", score=1.0, passed=True, verdict="pass")
        fragment = alice_client.get(f"/scenarios/{scenario.pk}/", HTTP_HX_REQUEST="true").content.decode()
        assert fragment.lstrip().startswith('<div id="scenario-runs"') and following in fragment
        assert "<html" not in fragment and "pass 1.00" in fragment

    def test_recent_runs_show_the_cost_as_the_runs_list_does(self, alice_client: Client, scenario: Scenario) -> None:
        Run.objects.create(scenario=scenario, model="m", status="error", started_at=timezone.now())

        html = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()

        assert "no model call" in html and "unknown" not in html

    def test_it_requires_login(self, client: Client, scenario: Scenario) -> None:
        assert client.get(f"/scenarios/{scenario.pk}/last-score/").status_code == 302
