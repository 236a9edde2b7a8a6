"""`manage.py evalhub run --models … --trials …`: the experiment gate's exit codes with real processes.

The regression is a real change of the server's behaviour: between the two experiments the demo server's arguments
gain `--mode broken-weather`, so its get_weather tool answers an error, and a code scorer (run in V8) fails trials
whose tool calls errored.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalhub.api_keys.models import ApiKey
from evalhub.demo import DEMO_SERVER, seed_demo_scenarios, seed_demo_scorers, seed_demo_server
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer
from runs.experiments.compare import experiment_compare
from runs.experiments.divergence import first_divergence
from runs.experiments.models import BaselinePin, Experiment, ExperimentCell
from runs.experiments.services import baseline_pin
from runs.models import Run
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario
from tests.runs.experiments.helpers import second_provider
from tests.runs.test_ci_command import evalhub, web  # noqa: F401 — the web server fixture, shared

NO_TOOL_ERRORS = (
    "async ({ output }) => output.toolCalls.length > 0 && output.toolCalls.every((c) => !c.isError) ? 1 : 0"
)


def weather_scenario(server: McpServer | None = None) -> Scenario:
    scenario = make_scenario(server or make_demo_server(), name="Weather in Paris")
    scenario.tags.add(Tag.objects.get_or_create(name="smoke")[0])
    scenario.scorers.add(Scorer.objects.create(name="No tool errors", kind="code", code=NO_TOOL_ERRORS))
    return scenario


@pytest.mark.worker
class ExperimentGateTests:
    def test_it_exits_0_then_1_when_the_server_breaks_and_names_where_the_runs_part(
        self, worker: subprocess.Popen[bytes], tmp_path: Path
    ) -> None:
        scenario = weather_scenario()
        junit, report = tmp_path / "junit.xml", tmp_path / "experiment.json"
        gate = ["--tag", "smoke", "--models", "evalhub-offline", "--trials", "4", "--poll", "0.2"]

        first = evalhub(*gate, "--label", "v1", "--junit", str(junit), "--json", str(report))

        assert first.returncode == 0, first.stdout + first.stderr
        baseline = Experiment.objects.get()
        assert f"Started experiment #{baseline.pk} on this EvalHub: 4 runs" in first.stdout
        assert ["Weather", "in", "Paris", "4/4"] in [line.split() for line in first.stdout.splitlines()]
        assert "1/1 cells passed" in first.stdout
        case = ET.parse(junit).getroot().find("testsuite/testcase")
        assert case is not None and case.get("name") == "Weather in Paris" and case.find("failure") is None
        assert json.loads(report.read_text())["experiment"]["cells"][0]["passes"] == 4
        pinner = User.objects.create_user("alice", is_staff=True)
        pin = BaselinePin.objects.create(tag="smoke", experiment=baseline, pinned_by=pinner)
        McpServer.objects.filter(pk=scenario.server_id).update(
            args=["-m", "evalhub.demo_server", "--mode", "broken-weather"]
        )

        second = evalhub(*gate, "--label", "v2", "--baseline", "pinned", "--fail-on-regression", "--junit", str(junit))

        assert second.returncode == 1, second.stdout + second.stderr
        candidate = Experiment.objects.exclude(pk=baseline.pk).get()
        assert candidate.baseline == baseline
        pinned = f"(the baseline pinned for #smoke by alice at {pin.pinned_at:%Y-%m-%dT%H:%M:%S}"
        assert f"Compared with experiment #{baseline.pk} {pinned}" in second.stdout
        assert ": 1 regressed, 0 fixed, 0 unchanged" in second.stdout
        assert (
            "Weather in Paris on evalhub-offline: Regressed: 0/4 passed, baseline 4/4 (Fisher p = 0.029)."
            in second.stderr
        )
        failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
        assert (
            failure is not None and failure.get("message") == "Regressed: 0/4 passed, baseline 4/4 (Fisher p = 0.029)."
        )
        assert (failure.text or "").splitlines()[1].startswith("A failing trial: ")
        good = Run.objects.filter(experiment=baseline).first()
        bad = Run.objects.filter(experiment=candidate).first()
        assert good is not None and bad is not None
        divergence = first_divergence(good.transcript["steps"], bad.transcript["steps"])
        assert divergence.first_index == 0
        assert divergence.explanation.startswith(
            "Step 1: same call get_weather(latitude: 48.85, longitude: 2.35), different result:"
        )
        assert '→ error "Error executing tool get_weather: get_weather is unavailabl…"' in divergence.explanation

    def test_without_a_regression_gate_a_failing_cell_exits_1(self, worker: subprocess.Popen[bytes]) -> None:
        weather_scenario(make_demo_server(args=["-m", "evalhub.demo_server", "--mode", "broken-weather"]))

        result = evalhub("--tag", "smoke", "--models", "evalhub-offline", "--trials", "1", "--poll", "0.2")

        assert result.returncode == 1, result.stdout + result.stderr
        assert "Pass rate 0% is below 100% (0/1)." in result.stderr

    def test_modes_run_every_model_directly_and_in_code_mode_side_by_side(
        self, worker: subprocess.Popen[bytes]
    ) -> None:
        weather_scenario()

        result = evalhub("--tag", "smoke", "--models", "evalhub-offline", "--modes", "direct,code", "--trials", "1")

        assert result.returncode == 0, result.stdout + result.stderr
        lines = [line.split() for line in result.stdout.splitlines()]
        assert ["Scenario", "evalhub-offline", "·", "direct", "evalhub-offline", "·", "code"] in lines
        assert ["Weather", "in", "Paris", "1/1", "1/1"] in lines
        modes = sorted(run.settings["tool_mode"] for run in Run.objects.all())
        assert modes == ["code", "direct"]
        code_run = Run.objects.get(settings__tool_mode="code")
        assert [call["toolName"] for call in code_run.all_tool_calls] == ["run_code", "get_weather"]

    def test_a_server_that_cannot_start_fails_its_trials_exit_1(self, worker: subprocess.Popen[bytes]) -> None:
        weather_scenario(make_demo_server(command="/nonexistent/mcp-server", args=[]))

        result = evalhub("--tag", "smoke", "--models", "evalhub-offline", "--trials", "2", "--poll", "0.2")

        # The server under test failed: a decided failure, not an infrastructure problem.
        assert result.returncode == 1, result.stdout + result.stderr
        assert "Pass rate 0% is below 100% (0/2)." in result.stderr
        assert "A failing trial: server: " in result.stderr and "/nonexistent/mcp-server" in result.stderr
        assert ExperimentCell.objects.get().failure_causes == {"server": 2}

    def test_it_exits_3_when_a_provider_outage_leaves_trials_inconclusive(
        self, worker: subprocess.Popen[bytes], tmp_path: Path
    ) -> None:
        scenario = weather_scenario()
        # Nothing listens on port 9: every model call is refused, an outage of the provider, not the agent's fault.
        down = second_provider("Down", ("down-model",))
        Scenario.objects.filter(pk=scenario.pk).update(provider=down, model="down-model")
        junit = tmp_path / "junit.xml"
        gate = ["--tag", "smoke", "--models", "down-model", "--trials", "2", "--poll", "0.2", "--junit", str(junit)]

        result = evalhub(*gate)
        allowed = evalhub(*gate, "--max-inconclusive", "5")

        assert result.returncode == allowed.returncode == 3, result.stdout + result.stderr
        assert ["Weather", "in", "Paris", "0/0", "+2", "inconclusive"] in [
            line.split() for line in result.stdout.splitlines()
        ]
        assert "0/1 cells passed, 1 undecided" in result.stdout
        assert "Weather in Paris on down-model: 2 of 2 trial(s) inconclusive (at most 0 allowed): provider: " in (
            result.stderr
        )
        # Allowing more changes nothing when no trial was decided at all.
        assert "2 of 2 trial(s) inconclusive (at most 5 allowed)" in allowed.stderr
        case = ET.parse(junit).getroot().find("testsuite/testcase")
        assert case is not None and case.find("skipped") is not None and case.find("failure") is None


@pytest.mark.django_db(transaction=True)
class ExperimentGateInfraTests:
    def test_it_exits_2_when_the_quota_cannot_hold_the_whole_experiment(self) -> None:
        weather_scenario()

        result = evalhub("--tag", "smoke", "--models", "evalhub-offline", "--trials", "5", EVALHUB_DAILY_RUN_QUOTA="3")

        assert result.returncode == 2
        assert (
            "error: This experiment needs 5 runs; 3 are left today; the quota resets at 00:00 UTC, in" in result.stderr
        )
        assert not Run.objects.exists()

    def test_help_documents_every_exit_code_and_max_inconclusive(self) -> None:
        result = evalhub("--help")

        assert result.returncode == 0
        text = " ".join(result.stdout.split())
        assert "--max-inconclusive N Exit 3 (undecided) when a cell has more than N inconclusive trials" in text
        for code in (
            "0  every run passed",
            "1  a run failed",
            "2  infrastructure",
            "3  nothing failed, but a run was inconclusive",
        ):
            assert f"\n  {code}" in result.stdout

    def test_it_exits_2_for_an_unknown_mode_or_modes_without_models(self) -> None:
        weather_scenario()

        unknown = evalhub("--tag", "smoke", "--models", "evalhub-offline", "--modes", "direct,fast")
        alone = evalhub("--tag", "smoke", "--modes", "code")

        assert unknown.returncode == alone.returncode == 2
        assert "argument --modes: not a tool mode: 'fast' (use direct, code)" in unknown.stderr
        assert "--trials, --modes and --variant need --models" in alone.stderr
        assert not Run.objects.exists()

    def test_it_exits_2_for_an_unknown_model_or_a_pinned_baseline_without_a_tag(self) -> None:
        weather_scenario()

        unknown = evalhub("--tag", "smoke", "--models", "gpt-9")
        untagged = evalhub("--scenario", "Weather in Paris", "--models", "evalhub-offline", "--baseline", "pinned")

        assert unknown.returncode == untagged.returncode == 2
        assert "No provider serves the model 'gpt-9'" in unknown.stderr
        assert "--baseline pinned needs exactly one --tag" in untagged.stderr


@pytest.mark.worker
class ExperimentGateRemoteTests:
    def test_it_runs_an_experiment_through_a_remote_evalhubs_api(
        self,
        worker: subprocess.Popen[bytes],
        web: str,  # noqa: F811
        alice: User,
        tmp_path: Path,
    ) -> None:
        weather_scenario()
        _, key = ApiKey.issue(user=alice, name="ci", scopes=["evaluate:read", "evaluate:write"])
        junit = tmp_path / "junit.xml"

        result = evalhub(
            "--url", web, "--tag", "smoke", "--models", "evalhub-offline", "--trials", "2", "--poll", "0.3",
            "--junit", str(junit), EVALHUB_API_KEY=key,
        )  # fmt: skip

        assert result.returncode == 0, result.stdout + result.stderr
        assert f"on {web}/api/v1: 2 runs" in result.stdout
        experiment = Experiment.objects.get()
        assert (experiment.created_by, experiment.finished_runs) == (alice, 2)
        assert ET.parse(junit).getroot().find("testsuite/testcase") is not None


@pytest.mark.worker
class ReadmeRegressionRecipeTests:
    def test_the_demo_regresses_on_broken_weather_and_blames_the_server(
        self, worker: subprocess.Popen[bytes], alice_client: Client
    ) -> None:
        """README, Experiments: the demo's smoke tag, 5 trials on the offline model, pinned; then the demo server
        with `--mode broken-weather`, compared with the pinned baseline."""
        for seed in (seed_demo_server, seed_demo_scenarios, seed_demo_scorers):
            seed()
        gate = ["--tag", "smoke", "--models", "evalhub-offline", "--trials", "5", "--poll", "0.2"]

        first = evalhub(*gate, timeout=300)

        assert first.returncode == 0, first.stdout + first.stderr
        baseline = Experiment.objects.get()
        assert ["Weather", "in", "Paris", "5/5"] in [line.split() for line in first.stdout.splitlines()]
        baseline_pin(experiment=baseline, user=None)  # the experiment page's "Pin as baseline"
        McpServer.objects.filter(name=DEMO_SERVER).update(
            args=["-m", "evalhub.demo_server", "--mode", "broken-weather"]
        )

        second = evalhub(*gate, "--baseline", "pinned", "--fail-on-regression", timeout=300)

        assert second.returncode == 1, second.stdout + second.stderr
        candidate = Experiment.objects.exclude(pk=baseline.pk).get()
        assert f"Compared with experiment #{baseline.pk} (the baseline pinned for #smoke" in second.stdout
        assert ": 2 regressed, 0 fixed, 1 unchanged" in second.stdout
        assert (
            "  regressed: Weather in Paris on evalhub-offline: 5/5 → 0/5, Fisher p = 0.008; causes: server 5 — "
            "Passes less often than the baseline" in second.stdout
        )
        assert "regressed: Weather in Paris (code mode) on evalhub-offline: 5/5 → 0/5" in second.stdout
        assert "Weather in Paris on evalhub-offline: Regressed: 0/5 passed, baseline 5/5 (Fisher p = 0.008)." in (
            second.stderr
        )
        comparison = experiment_compare(candidate=candidate, baseline=baseline)
        row = next(row for row in comparison.rows if row.scenario_name == "Weather in Paris")
        assert row.kind == "regressed" and row.p_value == pytest.approx(2 / 252)
        assert row.candidate is not None
        broken = row.candidate.cell
        assert (broken.passes, broken.counted, broken.inconclusive) == (0, 5, 0)
        assert broken.failure_causes == {"server": 5}
        assert broken.failed_stages == {"result returned": 5}
        assert broken.failure.startswith("server: get_weather returned an error on ")
        # The first divergence is one click away on the comparison.
        page = alice_client.get(reverse("experiments:compare", args=[candidate.pk])).content.decode()
        assert "causes: server 5" in page and ">First divergence</a>" in page
