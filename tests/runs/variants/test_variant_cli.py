"""`manage.py evalhub run --variant FILE`: a variant of the tool surface in CI, with a real worker process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evalhub.scenarios.models import Tag
from runs.experiments.models import Experiment
from runs.models import Run
from tests.base import make_demo_server, make_scenario
from tests.runs.test_ci_command import evalhub
from tests.runs.variants.test_variant_experiment import PROMPT, TERSE


def departures() -> None:
    scenario = make_scenario(make_demo_server(), name="Departures", prompt=PROMPT, expected_tools=["search_flights"])
    scenario.tags.add(Tag.objects.get_or_create(name="smoke")[0])


@pytest.mark.worker
class VariantCliTests:
    def test_a_variant_runs_beside_the_server_as_it_is_and_its_regression_is_printed(
        self, worker: subprocess.Popen[bytes], tmp_path: Path
    ) -> None:
        departures()
        variant = tmp_path / "terse.json"
        variant.write_text(json.dumps(TERSE))

        result = evalhub("--tag", "smoke", "--models", "evalhub-offline", "--trials", "1", "--variant", str(variant))

        # Every cell must pass without a regression gate, the variant's too: its verdicts are any run's.
        assert result.returncode == 1, result.stdout + result.stderr
        lines = [line.split() for line in result.stdout.splitlines()]
        assert ["Scenario", "evalhub-offline", "evalhub-offline", "·", "terse-search"] in lines
        assert ["Departures", "1/1", "0/1"] in lines
        assert "Variant “terse-search” against the server as it is: 1 regressed, 0 fixed, 0 unchanged" in result.stdout
        assert "  regressed: Departures on evalhub-offline · terse-search: 1/1 → 0/1" in result.stdout
        experiment = Experiment.objects.get()
        assert experiment.variant_list == [{**TERSE, "hide": [], "rename": {}}]

    @pytest.mark.django_db(transaction=True)
    def test_a_bad_variant_file_exits_2_naming_the_file_and_the_place(self, tmp_path: Path) -> None:
        departures()
        variant = tmp_path / "bad.json"
        variant.write_text(json.dumps({"name": "x", "rename": {"search_flights": "find flights"}}))

        result = evalhub("--tag", "smoke", "--models", "evalhub-offline", "--variant", str(variant))

        assert result.returncode == 2
        assert f"argument --variant: {variant}.rename.search_flights: the new name must be" in result.stderr
        assert not Run.objects.exists()
