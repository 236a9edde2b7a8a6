"""The judges gate: under "calibrated", a gating judge that is not calibrated is advisory, shown and never deciding.

Real scoring (a scripted judge endpoint at the HTTP boundary), real reviews; the experiment, API and CLI options
each reach the run's settings, which is what scoring reads.
"""

from __future__ import annotations

import subprocess
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.models import Scenario
from runs.models import Run
from scorers.calibration.services import scorer_calibration
from scorers.models import Scorer
from tests.base import PROJECT_DIR, PYTHON, child_env, make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import ScriptedServer
from tests.runs.experiments.helpers import start
from tests.scorers.calibration.helpers import judge_answer, judge_scorer, reviewed, scored

AGREEING = [("It is sunny.", "pass"), ("Sunny again.", "pass"), ("It rains.", "fail"), ("Snow.", "fail")]


pytestmark = pytest.mark.usefixtures("few_reviews")


@pytest.fixture
def judge(alice: User, scenario: Scenario, scripted: ScriptedServer) -> Scorer:
    scorer = judge_scorer(alice, make_scripted_provider(scripted.base_url))
    scenario.scorers.set([scorer])
    return scorer


def calibrate(judge: Scorer, scenario: Scenario, scripted: ScriptedServer, reviewer: User) -> None:
    scripted.script(*(judge_answer("GOOD" if verdict == "pass" else "BAD") for _, verdict in AGREEING))
    for text, verdict in AGREEING:
        reviewed(scored(scenario, text=text), reviewer, verdict)
    assert scorer_calibration(scorer=judge).status == "calibrated"


@pytest.mark.django_db
class GateTests:
    def test_by_default_every_gating_judge_decides(self, scenario: Scenario, judge: Scorer, scripted: Any) -> None:
        scripted.script(judge_answer("BAD"))
        run = scored(scenario, text="It is sunny.")
        result = run.score_results.get()
        assert (result.gating, run.verdict, run.score) == (True, "fail", 0.0)
        assert "advisory_because" not in (result.details or {})

    def test_an_uncalibrated_judge_is_advisory_under_the_site_setting(
        self, settings: Any, scenario: Scenario, judge: Scorer, scripted: ScriptedServer
    ) -> None:
        settings.EVALHUB_GATE_JUDGES = "calibrated"
        scripted.script(judge_answer("BAD"))

        run = scored(scenario, text="It is sunny.")

        result = run.score_results.get()
        # Shown (its score, label and reason are kept) but not deciding: it neither gates nor counts in the score.
        assert (result.gating, result.score, result.label) == (False, 0.0, "BAD")
        assert result.details["calibration"] == "uncalibrated"
        assert "only calibrated judges gate this run" in result.details["advisory_because"]
        assert run.score is None and run.verdict == "inconclusive"
        assert "advisory" in run.failure_reason

    def test_the_run_setting_wins_over_the_site_setting(
        self, settings: Any, scenario: Scenario, judge: Scorer, scripted: ScriptedServer
    ) -> None:
        settings.EVALHUB_GATE_JUDGES = "calibrated"
        scripted.script(judge_answer("BAD"))
        run = scored(scenario, text="It is sunny.", settings={"prompt": "p", "pass_threshold": 0.5, "judges": "all"})
        assert (run.score_results.get().gating, run.verdict) == (True, "fail")

    def test_a_calibrated_judge_still_decides(
        self, settings: Any, alice: User, scenario: Scenario, judge: Scorer, scripted: ScriptedServer
    ) -> None:
        calibrate(judge, scenario, scripted, alice)
        settings.EVALHUB_GATE_JUDGES = "calibrated"
        scripted.script(judge_answer("BAD"))

        run = scored(scenario, text="It is sunny.")

        result = run.score_results.get()
        assert (result.gating, run.verdict) == (True, "fail")
        assert "advisory_because" not in result.details

    def test_a_judge_that_disagrees_with_people_does_not_decide(
        self, settings: Any, alice: User, scenario: Scenario, judge: Scorer, scripted: ScriptedServer
    ) -> None:
        # The judge says the opposite of people every time: κ = -1.
        scripted.script(*(judge_answer("BAD" if verdict == "pass" else "GOOD") for _, verdict in AGREEING))
        for text, verdict in AGREEING:
            reviewed(scored(scenario, text=text), alice, verdict)
        settings.EVALHUB_GATE_JUDGES = "calibrated"
        scripted.script(judge_answer("GOOD"))
        scenario.expected_tools = ["get_weather"]
        scenario.save()

        run = scored(scenario, text="It is sunny.")

        result = run.score_results.get()
        assert (result.gating, result.details["calibration"]) == (False, "disagrees")

    def test_other_scorers_still_decide_beside_an_advisory_judge(
        self, settings: Any, alice: User, scenario: Scenario, judge: Scorer, scripted: ScriptedServer
    ) -> None:
        settings.EVALHUB_GATE_JUDGES = "calibrated"
        scenario.expectations = [{"kind": "final_answer", "icontains": "sunny"}]
        scenario.save()
        scripted.script(judge_answer("BAD"), judge_answer("BAD"))

        passed = scored(scenario, text="It is sunny.")
        failed = scored(scenario, text="It rains.")

        assert (passed.verdict, passed.score) == ("pass", 1.0)
        assert failed.verdict == "fail"


@pytest.mark.django_db
class GateOptionTests:
    def test_an_experiment_records_its_choice_and_gives_it_to_each_trial(self, scenario: Scenario) -> None:
        experiment = start([scenario], trials=2, judges="calibrated")
        assert experiment.judges == "calibrated"
        assert {run.settings["judges"] for run in Run.objects.filter(experiment=experiment)} == {"calibrated"}

    def test_an_experiment_without_a_choice_records_the_site_setting(self, settings: Any, scenario: Scenario) -> None:
        settings.EVALHUB_GATE_JUDGES = "calibrated"
        assert start([scenario], trials=1).judges == "calibrated"
        settings.EVALHUB_GATE_JUDGES = "all"
        assert start([scenario], trials=1).judges == "all"

    def test_the_experiments_api_takes_and_answers_it(self, alice_client: Client, scenario: Scenario) -> None:
        body = {"scenario_ids": [scenario.pk], "models": [{"model": scenario.model}], "trials": 1}
        answer = alice_client.post(
            "/api/v1/experiments", {**body, "judges": "calibrated"}, content_type="application/json"
        )
        assert answer.status_code == 201, answer.content
        assert answer.json()["judges"] == "calibrated"
        refused = alice_client.post("/api/v1/experiments", {**body, "judges": "some"}, content_type="application/json")
        assert refused.status_code == 400 and b"judges" in refused.content

    def test_the_runs_api_takes_it(self, alice_client: Client, scenario: Scenario) -> None:
        answer = alice_client.post(
            "/api/v1/runs", {"scenario_ids": [scenario.pk], "judges": "calibrated"}, content_type="application/json"
        )
        assert answer.status_code == 201, answer.content
        assert Run.objects.get().settings["judges"] == "calibrated"

    def test_the_experiment_form_takes_it(self, alice_client: Client, scenario: Scenario) -> None:
        page = alice_client.get("/experiments/new/")
        assert b'name="judges"' in page.content


@pytest.mark.django_db(transaction=True)
class GateCliTests:
    def test_judges_calibrated_reaches_the_runs(self) -> None:
        make_scenario(make_demo_server())
        result = subprocess.run(
            [PYTHON, "manage.py", "evalhub", "run", "--scenario", "Weather in Paris", "--judges", "calibrated"],
            cwd=PROJECT_DIR,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert Run.objects.get().settings["judges"] == "calibrated"

    def test_an_unknown_choice_is_refused(self) -> None:
        result = subprocess.run(
            [PYTHON, "manage.py", "evalhub", "run", "--scenario", "x", "--judges", "some"],
            cwd=PROJECT_DIR,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode != 0 and "invalid choice: 'some'" in result.stderr
