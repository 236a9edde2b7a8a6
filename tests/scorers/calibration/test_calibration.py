"""Calibration of scorers against people's reviews: real scoring (V8, a scripted judge endpoint), real reviews."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.providers.models import Provider, SiteSettings
from evalhub.scenarios.models import Scenario
from scorers.calibration.services import current_fingerprint, expectations_calibration, scorer_calibration
from scorers.calibration.version import expectations_fingerprint
from scorers.services import scorer_save
from tests.base import make_scripted_provider
from tests.evalhub.model_client.scripted_server import ScriptedServer
from tests.scorers.calibration.helpers import (
    code_scorer,
    judge_answer,
    judge_scorer,
    rescore,
    reviewed,
    scored,
)

# (what the run answered, what people said): the code scorer passes "sunny" answers.
AGREEING = [("It is sunny.", "pass"), ("It is sunny today.", "pass"), ("It rains.", "fail"), ("Snow.", "fail")]


pytestmark = pytest.mark.usefixtures("few_reviews")


def review_all(scenario: Scenario, reviewer: User, cases: list[tuple[str, str]]) -> list[int]:
    return [reviewed(scored(scenario, text=text), reviewer, verdict).pk for text, verdict in cases]


@pytest.mark.django_db
class ScoreResultVersionTests:
    def test_a_result_keeps_the_fingerprint_and_judge_model_it_scored_with(
        self, alice: User, scenario: Scenario, scripted: ScriptedServer
    ) -> None:
        code = code_scorer(alice)
        judge = judge_scorer(alice, make_scripted_provider(scripted.base_url))
        scenario.scorers.set([code, judge])
        scripted.script(judge_answer("GOOD"))

        run = scored(scenario, text="It is sunny.")

        by_kind = {result.scorer_kind: result for result in run.score_results.all()}
        assert by_kind["code"].fingerprint == current_fingerprint(code)[0]
        assert by_kind["code"].judge_model == ""
        assert by_kind["judge"].fingerprint == current_fingerprint(judge)[0]
        assert by_kind["judge"].judge_model == "gpt-4o"

    def test_expectations_results_keep_the_spec_fingerprint(self, alice: User, scenario: Scenario) -> None:
        scenario.expectations = [{"kind": "tool_called", "tool": "get_weather"}]
        scenario.save()
        run = scored(scenario, text="It is sunny.")
        assert run.score_results.get().fingerprint == expectations_fingerprint(scenario.expectations)


@pytest.mark.django_db
class ScorerCalibrationTests:
    def test_a_scorer_nobody_reviewed_is_uncalibrated(self, alice: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        scored(scenario, text="It is sunny.")
        calibration = scorer_calibration(scorer=scorer)
        assert (calibration.status, calibration.current.reviewed, calibration.current.figures.kappa) == (
            "uncalibrated",
            0,
            None,
        )

    def test_too_few_reviews_leave_it_uncalibrated(self, alice: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        review_all(scenario, alice, AGREEING[:3])
        assert scorer_calibration(scorer=scorer).status == "uncalibrated"

    def test_a_scorer_that_agrees_with_people_is_calibrated(self, alice: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        review_all(scenario, alice, AGREEING)

        current = scorer_calibration(scorer=scorer).current
        assert current.status == "calibrated"
        assert current.to_api() == {
            "reviewed": 4,
            "agreement": 1.0,
            "kappa": 1.0,
            "true_positive_rate": 1.0,
            "true_negative_rate": 1.0,
            "confusion": {"tp": 2, "fp": 0, "tn": 2, "fn": 0},
            "status": "calibrated",
            "version": current_fingerprint(scorer)[0],
            "judge_model": "",
        }
        assert current.disagreeing == ()

    def test_a_scorer_that_disagrees_lists_the_runs(self, alice: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        # People failed a sunny answer (it was about the wrong city) and passed a rainy one.
        agree = review_all(scenario, alice, AGREEING)
        false_pass = reviewed(scored(scenario, text="It is sunny in Rome."), alice, "fail").pk
        false_fail = reviewed(scored(scenario, text="Rain in Paris, take an umbrella."), alice, "pass").pk
        review_all(scenario, alice, [("It rains.", "pass"), ("sunny", "fail")])

        current = scorer_calibration(scorer=scorer).current
        assert current.status == "disagrees"
        assert current.figures.confusion.to_dict() == {"tp": 2, "fp": 2, "tn": 2, "fn": 2}
        assert current.figures.kappa == 0.0
        assert false_pass in current.false_passes and false_fail in current.false_fails
        assert not set(agree) & set(current.disagreeing)

    def test_runs_people_did_not_review_do_not_count(self, alice: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        review_all(scenario, alice, AGREEING)
        scored(scenario, text="It is sunny.")
        assert scorer_calibration(scorer=scorer).current.reviewed == 4

    def test_the_human_verdict_is_the_majority_of_reviewers(self, alice: User, bob: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        run = reviewed(scored(scenario, text="It is sunny."), alice, "pass")
        reviewed(run, bob, "fail")
        # One pass, one fail: runs.reviews.rule decides (the latest review), and calibration reads its answer.
        run.refresh_from_db()
        expected = {"pass": (1, 0), "fail": (0, 1)}[run.human_verdict]
        confusion = scorer_calibration(scorer=scorer).current.figures.confusion
        assert (confusion.tp, confusion.fp) == expected


@pytest.mark.django_db
class StaleTests:
    """The reviews vouch for the scorer as it was: any change of what scores makes it stale, and old reviews still
    count toward the old version."""

    def assert_stale(self, scorer_id: int, old_fingerprint: str) -> None:
        from scorers.models import Scorer

        calibration = scorer_calibration(scorer=Scorer.objects.get(pk=scorer_id))
        assert calibration.status == "stale"
        assert calibration.current.fingerprint != old_fingerprint
        assert calibration.current.reviewed == 0
        (older,) = calibration.older
        assert (older.fingerprint, older.reviewed, older.status) == (old_fingerprint, 4, "calibrated")

    def test_a_change_of_code(self, alice: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        review_all(scenario, alice, AGREEING)
        old = current_fingerprint(scorer)[0]
        scorer.code = 'async ({ output }) => (output.text.includes("sun") ? 1 : 0)'
        scorer_save(scorer=scorer, user=alice)
        self.assert_stale(scorer.pk, old)

    def judged(self, alice: User, scenario: Scenario, scripted: ScriptedServer, provider: Provider) -> object:
        scorer = judge_scorer(alice, provider)
        scenario.scorers.set([scorer])
        scripted.script(*(judge_answer("GOOD" if verdict == "pass" else "BAD") for _, verdict in AGREEING))
        review_all(scenario, alice, AGREEING)
        assert scorer_calibration(scorer=scorer).status == "calibrated"
        return scorer

    @pytest.mark.parametrize(
        ("part", "value"),
        [("system_prompt", "Did the agent answer kindly?"), ("labels", "GOOD|1\nOK|0.5\nBAD|0"), ("judge_model", "o3")],
    )
    def test_a_change_of_a_judge(
        self, alice: User, scenario: Scenario, scripted: ScriptedServer, part: str, value: str
    ) -> None:
        provider = make_scripted_provider(scripted.base_url, model_names=["gpt-4o", "o3"])
        scorer = self.judged(alice, scenario, scripted, provider)
        old = current_fingerprint(scorer)[0]  # type: ignore[arg-type]
        setattr(scorer, part, value)
        scorer_save(scorer=scorer, user=alice)  # type: ignore[arg-type]
        self.assert_stale(scorer.pk, old)  # type: ignore[attr-defined]

    def test_a_change_of_the_default_judge_model(
        self, alice: User, scenario: Scenario, scripted: ScriptedServer
    ) -> None:
        provider = make_scripted_provider(scripted.base_url, model_names=["gpt-4o", "o3"])
        site = SiteSettings.load()
        site.judge_provider, site.judge_model = provider, "gpt-4o"
        site.save()
        scorer = judge_scorer(alice, provider)
        scorer.judge_provider, scorer.judge_model = None, ""  # on the site's default judge model
        scorer_save(scorer=scorer, user=alice)
        scenario.scorers.set([scorer])
        scripted.script(*(judge_answer("GOOD" if verdict == "pass" else "BAD") for _, verdict in AGREEING))
        review_all(scenario, alice, AGREEING)
        old = current_fingerprint(scorer)[0]
        assert scorer_calibration(scorer=scorer).status == "calibrated"

        # Nobody saved the scorer: Settings now send its runs to another model.
        site.judge_model = "o3"
        site.save()
        self.assert_stale(scorer.pk, old)

    def test_going_back_to_the_reviewed_version_is_calibrated_again(self, alice: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        review_all(scenario, alice, AGREEING)
        original = scorer.code
        scorer.code = "async () => 1"
        scorer_save(scorer=scorer, user=alice)
        assert scorer_calibration(scorer=scorer).status == "stale"
        scorer.code = original
        scorer_save(scorer=scorer, user=alice)
        assert (scorer.version, scorer_calibration(scorer=scorer).status) == (3, "calibrated")

    def test_reviews_of_a_new_version_calibrate_it(self, alice: User, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        runs = review_all(scenario, alice, AGREEING)
        scorer.code = 'async ({ output }) => (output.text.includes("sun") ? 1 : 0)'
        scorer_save(scorer=scorer, user=alice)
        # Re-scored with the new code, the same reviewed runs now count toward it too.
        from runs.models import Run

        for run_id in runs:
            rescore(Run.objects.get(pk=run_id))
        calibration = scorer_calibration(scorer=scorer)
        assert (calibration.status, calibration.current.reviewed, calibration.older[0].reviewed) == (
            "calibrated",
            4,
            4,
        )

    def test_a_change_of_expectations(self, alice: User, scenario: Scenario) -> None:
        scenario.expectations = [{"kind": "final_answer", "icontains": "sunny"}]
        scenario.save()
        review_all(scenario, alice, AGREEING)
        calibration = expectations_calibration(scenario=scenario)
        assert calibration is not None and calibration.status == "calibrated"
        old = calibration.current.fingerprint

        scenario.expectations = [{"kind": "final_answer", "icontains": "sun"}]
        scenario.save()
        calibration = expectations_calibration(scenario=scenario)
        assert calibration is not None and calibration.status == "stale"
        assert [(c.fingerprint, c.reviewed) for c in calibration.older] == [(old, 4)]

    def test_a_scenario_without_expectations_has_no_calibration(self, scenario: Scenario) -> None:
        assert expectations_calibration(scenario=scenario) is None


@pytest.mark.django_db
class CalibrationApiTests:
    def test_it_answers_the_documented_shape(self, alice: User, alice_client: Client, scenario: Scenario) -> None:
        scenario.scorers.set([scorer := code_scorer(alice)])
        runs = review_all(scenario, alice, AGREEING)
        false_pass = reviewed(scored(scenario, text="It is sunny in Rome."), alice, "fail").pk

        answer = alice_client.get(f"/api/v1/scorers/{scorer.pk}/calibration")

        assert answer.status_code == 200, answer.content
        body = answer.json()
        assert body["reviewed"] == 5 and body["status"] == "calibrated"
        assert body["confusion"] == {"tp": 2, "fp": 1, "tn": 2, "fn": 0}
        assert body["kappa"] == pytest.approx((0.8 - 0.48) / 0.52)
        assert (body["true_positive_rate"], body["true_negative_rate"]) == (1.0, pytest.approx(2 / 3))
        assert body["version"] == current_fingerprint(scorer)[0] and body["judge_model"] == ""
        assert body["false_pass_run_ids"] == [false_pass] and body["false_fail_run_ids"] == []
        assert body["older"] == [] and false_pass not in runs

    def test_an_unknown_scorer_is_404(self, alice_client: Client) -> None:
        assert alice_client.get("/api/v1/scorers/999999/calibration").status_code == 404

    def test_it_requires_login(self, client: Client, alice: User) -> None:
        scorer = code_scorer(alice)
        assert client.get(f"/api/v1/scorers/{scorer.pk}/calibration").status_code == 401
