"""Where calibration is shown: the scorer page and list, the scenario form's judge pickers, the run page, reports,
the experiment and compare pages, and the API's score records."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.models import Scenario
from runs.models import Run
from tests.base import make_scripted_provider
from tests.evalhub.model_client.scripted_server import ScriptedServer
from tests.runs.experiments.helpers import start
from tests.scorers.calibration.helpers import code_scorer, judge_answer, judge_scorer, reviewed, score_run, scored

AGREEING = [("It is sunny.", "pass"), ("It is sunny again.", "pass"), ("It rains.", "fail"), ("Snow.", "fail")]


pytestmark = pytest.mark.usefixtures("few_reviews")


def advisory_run(scenario: Scenario, scripted: ScriptedServer, alice: User, settings: Any) -> Run:
    settings.EVALHUB_GATE_JUDGES = "calibrated"
    scenario.scorers.set([judge_scorer(alice, make_scripted_provider(scripted.base_url))])
    scripted.script(judge_answer("BAD"))
    return scored(scenario, text="It is sunny.")


@pytest.mark.django_db
class ScorerPageTests:
    def test_the_scorer_page_shows_its_calibration_and_the_disagreeing_runs(
        self, alice: User, alice_client: Client, scenario: Scenario
    ) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        for text, verdict in AGREEING:
            reviewed(scored(scenario, text=text), alice, verdict)
        wrong = reviewed(scored(scenario, text="It is sunny in Rome."), alice, "fail")

        page = alice_client.get(f"/scorers/{scorer.pk}/").content.decode()

        assert 'id="calibration"' in page
        assert "calibration-calibrated" in page
        assert "κ 0.62 over 5 reviewed runs" in page  # (0.8 - 0.48) / 0.52
        assert f'href="/runs/{wrong.pk}/">#{wrong.pk}</a>' in page.split('id="false-passes"')[1].split("</p>")[0]

    def test_the_scorer_list_shows_each_status(self, alice: User, alice_client: Client) -> None:
        code_scorer(alice)
        page = alice_client.get("/scorers/").content.decode()
        assert "calibration-uncalibrated" in page and "0 of 4 reviewed runs" in page

    def test_a_changed_scorer_says_stale_and_keeps_the_old_figures(
        self, alice: User, alice_client: Client, scenario: Scenario
    ) -> None:
        from scorers.services import scorer_save

        scenario.scorers.set([scorer := code_scorer(alice)])
        for text, verdict in AGREEING:
            reviewed(scored(scenario, text=text), alice, verdict)
        scorer.code = "async () => 1"
        scorer_save(scorer=scorer, user=alice)

        page = alice_client.get(f"/scorers/{scorer.pk}/").content.decode()
        assert "calibration-stale" in page
        assert "v1 · calibrated · κ 1.00 over 4 reviewed runs" in page


@pytest.mark.django_db
class PickerTests:
    def test_each_judge_in_the_scenario_form_says_its_calibration(
        self, alice: User, alice_client: Client, scenario: Scenario, scripted: ScriptedServer
    ) -> None:
        judge_scorer(alice, make_scripted_provider(scripted.base_url))
        code_scorer(alice)
        page = alice_client.get(f"/scenarios/{scenario.pk}/edit/").content.decode()
        assert "Polite judge (uncalibrated · 0 of 4 reviewed runs)" in page
        # Only judges are labelled: a code scorer is read, not trusted blindly, and never gated out.
        assert "Says sunny (" not in page


@pytest.mark.django_db
class RunPageTests:
    def test_a_judge_result_shows_its_calibration_and_why_it_was_advisory(
        self, settings: Any, alice: User, alice_client: Client, scenario: Scenario, scripted: ScriptedServer
    ) -> None:
        run = advisory_run(scenario, scripted, alice, settings)
        page = alice_client.get(f"/runs/{run.pk}/").content.decode()
        assert "advisory: judge uncalibrated" in page
        assert "only calibrated judges gate this run" in page
        assert 'class="badge calibration-uncalibrated"' in page


@pytest.mark.django_db
class ReportTests:
    def test_reports_and_the_api_say_a_verdict_was_advisory(
        self, settings: Any, alice: User, alice_client: Client, scenario: Scenario, scripted: ScriptedServer
    ) -> None:
        run = advisory_run(scenario, scripted, alice, settings)

        (score,) = alice_client.get(f"/api/v1/runs/{run.pk}").json()["scores"]
        assert score["gating"] is False
        assert "only calibrated judges" in score["advisory_because"]
        assert score["judge_model"] == "gpt-4o" and len(score["version"]) == 16

        markdown = alice_client.get(f"/runs/{run.pk}/report.markdown").content.decode()
        assert "_(advisory: the judge is uncalibrated" in markdown
        html = alice_client.get(f"/runs/{run.pk}/report.html").content.decode()
        assert "advisory, not deciding: the judge is uncalibrated" in html


@pytest.mark.django_db
class ExperimentPagesTests:
    def test_the_experiment_compare_page_and_report_name_the_advisory_judges(
        self, settings: Any, alice: User, alice_client: Client, scenario: Scenario, scripted: ScriptedServer
    ) -> None:
        settings.EVALHUB_GATE_JUDGES = "calibrated"
        scenario.scorers.set([judge_scorer(alice, make_scripted_provider(scripted.base_url))])
        baseline = start([scenario], trials=1)
        experiment = start([scenario], trials=2, baseline=baseline)
        scripted.script(*(judge_answer("BAD") for _ in range(3)))
        for run in Run.objects.filter(experiment__in=[baseline, experiment]):
            run.status, run.final_text = Run.Status.DONE, "It is sunny."
            run.save()
            score_run(run)

        detail = alice_client.get(f"/experiments/{experiment.pk}/").content.decode()
        assert "Polite judge in 2 trials" in detail
        compare = alice_client.get(f"/experiments/{experiment.pk}/compare/").content.decode()
        assert 'id="compare-advisory"' in compare
        assert f"in #{experiment.pk}, Polite judge in 2 trials" in compare
        assert f"in the baseline #{baseline.pk}, Polite judge in 1 trial." in compare
        record = alice_client.get(f"/api/v1/experiments/{experiment.pk}").json()
        assert record["judges"] == "calibrated" and record["advisory_judges"] == {"Polite judge": 2}
        report = alice_client.get(f"/api/v1/experiments/{experiment.pk}/report?format=markdown").content.decode()
        assert "Advisory verdicts (judges not calibrated" in report and "Polite judge in 2 trials" in report


@pytest.mark.django_db
class ScenarioPageTests:
    def test_the_scenario_page_shows_how_its_expectations_agree_with_people(
        self, alice: User, alice_client: Client, scenario: Scenario
    ) -> None:
        scenario.expectations = [{"kind": "final_answer", "icontains": "sunny"}]
        scenario.save()
        for text, verdict in AGREEING:
            reviewed(scored(scenario, text=text), alice, verdict)
        wrong = reviewed(scored(scenario, text="It is sunny in Rome."), alice, "fail")

        page = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()

        line = page.split('id="expectations-calibration"')[1].split("</p>")[0]
        assert "calibration-calibrated" in line and "κ 0.62 over 5 reviewed runs" in line
        assert f'passed, people failed: <a href="/runs/{wrong.pk}/">#{wrong.pk}</a>' in line
