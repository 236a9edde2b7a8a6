from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from evalhub.providers.model_choices import model_value
from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer
from runs.models import DailyRunQuota, Run
from runs.quota import utc_today
from scorers.models import Scorer
from tests.base import make_scenario


def form_data(server: McpServer, **overrides: Any) -> dict[str, Any]:
    return {
        "name": "Weather in Paris",
        "description": "",
        "server": server.pk,
        "model_choice": model_value(offline_provider(), "evalhub-offline"),
        "prompt": "What's the weather at latitude 48.85, longitude 2.35?",
        "system_prompt": "",
        "max_turns": 10,
        "max_tool_calls": 25,
        "time_limit_seconds": 300,
        "pass_threshold": 0.7,
        "expected_tools_text": "get_weather",
        "expected": "",
        "tags_text": "smoke, Weather",
        **overrides,
    }


@pytest.mark.django_db
class ScenarioCreateTests:
    def test_it_creates_a_scenario(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post("/scenarios/new/", form_data(server, expected='{"city": "Paris"}'))

        scenario = Scenario.objects.get()
        assert response["Location"] == f"/scenarios/{scenario.pk}/"
        assert (scenario.model, scenario.provider.is_offline) == ("evalhub-offline", True)
        assert scenario.expected_tools == ["get_weather"]
        assert scenario.expected == {"city": "Paris"}
        assert sorted(tag.name for tag in scenario.tags.all()) == ["smoke", "weather"]

    def test_invalid_expected_json_points_at_line_and_column_and_keeps_the_input(
        self, alice_client: Client, server: McpServer
    ) -> None:
        response = alice_client.post("/scenarios/new/", form_data(server, expected='{\n  "city": Paris\n}'))

        html = response.content.decode()
        assert response.status_code == 200
        assert "Invalid JSON at line 2, column 11: Expecting value." in html
        assert "What&#x27;s the weather at latitude 48.85" in html
        assert not Scenario.objects.exists()

    @pytest.mark.parametrize(
        ("expected", "message"),
        [
            ("NaN", "expected: NaN is not a JSON number"),
            ('{"temps": [1, Infinity]}', "expected.temps[1]: Infinity is not a JSON number"),
            ('{"low": -Infinity}', "expected.low: -Infinity is not a JSON number"),
        ],
    )
    def test_nan_and_infinity_in_expected_are_refused_and_the_input_kept(
        self, alice_client: Client, server: McpServer, expected: str, message: str
    ) -> None:
        response = alice_client.post("/scenarios/new/", form_data(server, expected=expected))

        html = response.content.decode()
        assert response.status_code == 200
        word = message.split(": ")[1].split()[0]
        assert f"{message}; send a finite number, null, or the text &quot;{word}&quot; as a string." in html
        assert expected.replace('"', "&quot;") in html
        assert not Scenario.objects.exists()

    def test_missing_required_fields_are_named(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post("/scenarios/new/", form_data(server, name="", prompt=""))

        assert response.content.decode().count("This field is required.") == 2

    def test_a_duplicate_name_is_refused(self, alice_client: Client, server: McpServer) -> None:
        make_scenario(server)

        response = alice_client.post("/scenarios/new/", form_data(server))

        assert "Scenario with this Name already exists." in response.content.decode()

    def test_unknown_expected_tools_warn_but_save(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post(
            "/scenarios/new/", form_data(server, expected_tools_text="get_weather\nget_wether"), follow=True
        )

        assert Scenario.objects.get().expected_tools == ["get_weather", "get_wether"]
        assert "Demo travel server does not offer get_wether" in response.content.decode()

    def test_a_tag_with_accents_is_refused_by_a_rule_the_help_states(
        self, alice_client: Client, server: McpServer
    ) -> None:
        response = alice_client.post("/scenarios/new/", form_data(server, tags_text="smoke, météo"))

        html = response.content.decode()
        assert "Unaccented letters, digits, - and _." in html
        assert "Tags may use unaccented letters, digits, - and _ only: météo." in html
        assert not Scenario.objects.exists()

    def test_it_requires_login(self, client: Client, server: McpServer) -> None:
        assert client.post("/scenarios/new/", form_data(server)).status_code == 302
        assert not Scenario.objects.exists()


@pytest.mark.django_db
class ScenarioEditTests:
    def test_it_shows_the_saved_values_and_saves_changes(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server, expected={"a": 1})

        html = alice_client.get(f"/scenarios/{scenario.pk}/edit/").content.decode()
        assert "get_weather</textarea>" in html
        assert "&quot;a&quot;: 1" in html

        alice_client.post(f"/scenarios/{scenario.pk}/edit/", form_data(server, name="Renamed", expected="[1, 2]"))

        scenario.refresh_from_db()
        assert (scenario.name, scenario.expected) == ("Renamed", [1, 2])


@pytest.mark.django_db
class ScenarioDuplicateDeleteTests:
    def test_duplicate_copies_everything_under_a_new_name(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server)
        alice_client.post("/scenarios/new/", form_data(server, name="Tagged"))
        tagged = Scenario.objects.get(name="Tagged")

        alice_client.post(f"/scenarios/{tagged.pk}/duplicate/")
        alice_client.post(f"/scenarios/{tagged.pk}/duplicate/")

        copy = Scenario.objects.get(name="Copy of Tagged")
        assert copy.prompt == tagged.prompt and copy.expected_tools == tagged.expected_tools
        assert sorted(t.name for t in copy.tags.all()) == ["smoke", "weather"]
        assert Scenario.objects.filter(name="Copy 2 of Tagged").exists()
        assert Scenario.objects.count() == 4 and scenario.pk

    def test_duplicate_keeps_the_scorers_and_says_what_it_copied(self, alice_client: Client, server: McpServer) -> None:
        checks = [{"kind": "tool_called", "tool": "get_weather"}, {"kind": "tool_not_called", "tool": "book_flight"}]
        scenario = make_scenario(
            server, expectations=checks, token_budget=5000, cost_budget_usd=Decimal("0.5"), expected={"city": "Paris"}
        )
        scenario.tags.set([Tag.objects.create(name="smoke")])
        scorers = [Scorer.objects.create(name=name, code="async () => 1") for name in ("Weather called", "Polite")]
        scenario.scorers.set(scorers)

        response = alice_client.post(f"/scenarios/{scenario.pk}/duplicate/", follow=True)

        copy = Scenario.objects.get(name=f"Copy of {scenario.name}")
        assert list(copy.scorers.order_by("name")) == [scorers[1], scorers[0]]
        assert (copy.expectations, copy.token_budget, copy.cost_budget_usd, copy.expected, copy.expected_tools) == (
            checks,
            5000,
            Decimal("0.5"),
            {"city": "Paris"},
            ["get_weather"],
        )
        assert [message.message for message in response.context["messages"]] == [
            f"Duplicated as “Copy of {scenario.name}” with the prompt, model and limits, 2 scorers (Polite, Weather "
            "called), tag smoke, 2 expectations, the token and cost budgets, the expected tools and the expected "
            "JSON. Edit it below."
        ]

    def test_delete_asks_first_then_deletes(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server)

        assert "cannot be undone" in alice_client.get(f"/scenarios/{scenario.pk}/delete/").content.decode()
        alice_client.post(f"/scenarios/{scenario.pk}/delete/")

        assert not Scenario.objects.exists()

    def test_delete_rejects_get_side_effects(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server)
        alice_client.get(f"/scenarios/{scenario.pk}/delete/")
        assert Scenario.objects.filter(pk=scenario.pk).exists()


@pytest.mark.django_db
class ScenarioListAndRunTests:
    def test_the_list_shows_the_last_score(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server)
        Run.objects.create(
            scenario=scenario, model="m", status="done", score=0.5, passed=False, verdict="fail", failure_cause="agent"
        )

        html = alice_client.get("/scenarios/").content.decode()

        assert 'fail 0.50</span> <span class="verdict-cause">· agent' in html
        assert f'formaction="/scenarios/{scenario.pk}/run/"' in html

    def test_run_queues_a_run_and_opens_it(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server)

        response = alice_client.post(f"/scenarios/{scenario.pk}/run/")

        run = Run.objects.get()
        assert response["Location"] == f"/runs/{run.pk}/"
        assert run.status == "queued"

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=0)
    def test_over_quota_it_says_when_the_quota_resets(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server)

        response = alice_client.post(f"/scenarios/{scenario.pk}/run/", follow=True)

        assert "Daily quota of 0 runs reached; it resets at 00:00 UTC (in" in response.content.decode()
        assert not Run.objects.exists()

    def test_run_selected_and_run_by_tag(self, alice_client: Client, server: McpServer, alice: User) -> None:
        first = make_scenario(server, name="A")
        make_scenario(server, name="B")
        alice_client.post("/scenarios/new/", form_data(server, name="C"))  # tagged smoke

        alice_client.post("/scenarios/run/", {"scenario_ids": [first.pk], "selected": "1"})
        assert list(Run.objects.values_list("scenario__name", flat=True)) == ["A"]

        response = alice_client.post("/scenarios/run/", {"tag": "smoke", "by_tag": "1"}, follow=True)
        assert "Queued 1 run." in response.content.decode()
        assert Run.objects.filter(scenario__name="C").count() == 1

    def test_run_by_tag_without_a_tag_explains(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post("/scenarios/run/", {"tag": "", "by_tag": "1"}, follow=True)
        assert "Choose a tag to run all its scenarios." in response.content.decode()

    def test_detail_shows_a_score_history_chart(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server)
        for score in (0.2, 1.0):
            verdict = "pass" if score >= 0.7 else "fail"
            Run.objects.create(scenario=scenario, model="m", status="done", score=score, verdict=verdict)

        html = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()

        assert '<polyline points="40.0,114.4 496.0,12.0"' in html  # 0.2 on the left, 1.0 at the top right
        assert html.count('class="chart-pass"') == 1 and html.count('class="chart-fail"') == 1
        labels = re.findall(r'class="chart-label[^"]*"[^>]*>([^<]+)</text>', html)
        assert labels[:3] == ["0.0", "0.5", "1.0"] and "score" in labels and "pass 0.70" in labels
        first, last = Run.objects.order_by("pk")
        assert any(label.startswith(f"#{first.pk} · ") for label in labels) and labels[-1].startswith(f"#{last.pk} · ")

        assert 'class="chart-lane"' not in html

    def test_inconclusive_runs_sit_in_their_own_lane_off_the_score_line(
        self, alice_client: Client, server: McpServer
    ) -> None:
        scenario = make_scenario(server)
        Run.objects.create(scenario=scenario, model="m", status="done", score=1.0, verdict="pass")
        outage = Run.objects.create(
            scenario=scenario,
            model="m",
            status="error",
            verdict="inconclusive",
            failure_cause="provider",
            failure_reason="provider: 429 after 4 attempts",
        )
        skipped = Run.objects.create(
            scenario=scenario, model="m", status="done", score=0.0, verdict="inconclusive", failure_cause="judge"
        )
        Run.objects.create(scenario=scenario, model="m", status="done", score=0.2, verdict="fail")

        html = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()

        # The plot keeps its size and moves down under the lane: 1.0 at y 34 (12 + the 22 px lane), 0.2 at 136.4.
        assert '<polyline points="40.0,34.0 496.0,136.4"' in html
        assert '<line x1="40" x2="496" y1="23.0" y2="23.0" class="chart-lane"/>' in html
        lane = re.findall(
            r'<a href="/runs/(\d+)/"><circle cx="([\d.]+)" cy="23.0" r="4" class="chart-inconclusive">', html
        )
        assert lane == [(str(outage.pk), "192.0"), (str(skipped.pk), "344.0")]
        assert html.count('class="chart-fail"') == 1 and html.count('class="chart-pass"') == 1
        assert f"Run #{outage.pk}: inconclusive (provider: 429 after 4 attempts)" in html

    def test_a_long_prompt_is_folded_as_on_the_run_page(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server, prompt="Plan the trip. " * 20_000 + "THE END")

        html = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()

        assert '<details class="fold fold-text" data-key=' in html
        assert "show all 300,007 characters" in html
        assert html.count("THE END") == 1  # only in the folded whole, not in the head shown


@pytest.mark.django_db
class ScenarioRunButtonTests:
    QUOTA_REASON = "Today's 2 runs are used up; the quota resets at 00:00 UTC."

    def test_run_selected_is_disabled_until_something_is_selected(
        self, alice_client: Client, server: McpServer
    ) -> None:
        make_scenario(server)

        html = alice_client.get("/scenarios/").content.decode()

        assert '<button class="button" type="submit" name="selected" value="1" id="run-selected" disabled title' in html
        assert "Select scenarios, or choose a tag, to run them." in html

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=2)
    def test_every_run_button_is_disabled_with_the_reason_when_the_quota_is_used_up(
        self, alice_client: Client, server: McpServer
    ) -> None:
        scenario = make_scenario(server)
        run = Run.objects.create(scenario=scenario, model="evalhub-offline", status="done")
        DailyRunQuota.objects.create(day=utc_today(), used=2)
        disabled = f' disabled title="{self.QUOTA_REASON}">'

        listing = alice_client.get("/scenarios/").content.decode()
        detail = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()
        run_page = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert listing.count(disabled + "Run selected<") == 1 and listing.count(disabled + "Run<") == 1
        assert listing.count(self.QUOTA_REASON) == 3  # two buttons' titles and the line beside them
        assert detail.count(disabled + "Run<") == 1 and "Quota used up until 00:00 UTC" in detail
        assert run_page.count(disabled + "Run again<") == 1


@pytest.mark.django_db
class ScenarioRunBannerTests:
    def test_the_run_page_says_queued_only_while_the_run_is_unfinished(
        self, alice_client: Client, server: McpServer
    ) -> None:
        scenario = make_scenario(server)

        queued = alice_client.post(f"/scenarios/{scenario.pk}/run/", follow=True)
        run = Run.objects.get()
        # Only the live bar, which htmx replaces when the run finishes; a flash banner outside it would stay.
        assert "This run is queued; the page updates by itself." in queued.content.decode()
        assert f"Queued run #{run.pk}" not in queued.content.decode()

        Run.objects.filter(pk=run.pk).update(status="done", score=1.0, passed=True)
        finished = alice_client.get(f"/runs/{run.pk}/").content.decode()
        assert "queued" not in finished.lower().replace("<dt>queued</dt>", "")


@pytest.mark.django_db
class ScenarioFailingServerTests:
    def test_a_failed_inspection_is_said_before_running(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server)
        server.last_error = {"kind": "connect_failed", "message": "Connection refused.", "at": "2026-11-23T20:00:00Z"}
        server.save()

        detail = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()
        listing = alice_client.get("/scenarios/").content.decode()

        assert (
            f'The last inspection of <a href="/servers/{server.pk}/">{server.name}</a> failed (connect_failed): '
            "Connection refused. A run would likely fail to connect and still count against today's quota: fix "
            "the server and inspect it again first." in detail
        )
        assert f'href="/servers/{server.pk}/" title="Its last inspection failed: Connection refused.">' in listing


@pytest.mark.django_db
class ScenarioToolModeTests:
    def test_the_form_saves_code_mode_and_a_run_copies_it(self, alice_client: Client, server: McpServer) -> None:
        alice_client.post("/scenarios/new/", form_data(server, tool_mode="code"))

        scenario = Scenario.objects.get()
        assert scenario.tool_mode == "code"
        alice_client.post(f"/scenarios/{scenario.pk}/run/")
        assert Run.objects.get().settings["tool_mode"] == "code"

    def test_a_form_without_the_field_keeps_direct_calls_and_an_unknown_mode_is_refused(
        self, alice_client: Client, server: McpServer
    ) -> None:
        alice_client.post("/scenarios/new/", form_data(server))
        assert Scenario.objects.get().tool_mode == "direct"

        response = alice_client.post("/scenarios/new/", form_data(server, name="Other", tool_mode="python"))
        assert "Select a valid choice. python is not one of the available choices." in response.content.decode()
