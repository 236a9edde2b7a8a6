"""The experiment gate (runs.experiments.reports.gate) and its JUnit: failures over decided trials, and cells with
too many inconclusive trials to decide."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

import pytest

from runs.experiments.reports import cell_text, gate, to_junit


def cell(passes: int, failed: int, inconclusive: int = 0, **extra: Any) -> dict[str, Any]:
    counted = passes + failed
    return {
        "scenario_name": "Weather in Paris",
        "model": "evalhub-offline",
        "trials": counted + inconclusive,
        "finished": counted + inconclusive,
        "counted": counted,
        "passes": passes,
        "inconclusive": inconclusive,
        "pass_rate": passes / counted if counted else None,
        "flaky": 0 < passes < counted,
        "k": counted,
        "pass_at_k": None,
        "pass_hat_k": None,
        "score_mean": None,
        "duration_p50_ms": None,
        "cost_usd": 0.0,
        "failure": "provider: 500 after 4 attempts"
        if inconclusive
        else ("server: get_weather failed" if failed else ""),
        **extra,
    }


def regressed(candidate: dict[str, Any]) -> dict[str, Any]:
    row = {"scenario_name": "Weather in Paris", "model": "evalhub-offline", "kind": "regressed", "p_value": 0.0079}
    return {"cells": [row | {"baseline": {"passes": 5, "counted": 5}, "candidate": candidate}]}


class GateTests:
    @pytest.mark.parametrize(
        ("counts", "max_inconclusive", "failures", "undecided"),
        [
            ((5, 0, 0), 0, 0, 0),
            ((4, 0, 1), 0, 0, 1),
            ((4, 0, 1), 1, 0, 0),
            ((0, 0, 2), 5, 0, 1),  # nothing decided is never a pass
            ((3, 1, 1), 0, 1, 1),  # the failure is what CI reports (exit 1), the undecided one comes second
        ],
    )
    def test_every_trial_must_pass_and_at_most_max_inconclusive_be_inconclusive(
        self, counts: tuple[int, int, int], max_inconclusive: int, failures: int, undecided: int
    ) -> None:
        (result,) = gate(
            {"cells": [cell(*counts)]},
            None,
            fail_on_regression=False,
            min_pass_rate=1.0,
            max_inconclusive=max_inconclusive,
        )
        assert (bool(result.failures), bool(result.undecided)) == (bool(failures), bool(undecided))

    def test_a_regression_names_its_p_value_and_counts_decided_trials(self) -> None:
        candidate = cell(0, 4, 1)
        (result,) = gate(
            {"cells": [candidate]},
            regressed(candidate),
            fail_on_regression=True,
            min_pass_rate=None,
            max_inconclusive=1,
        )
        assert result.failures[0] == "Regressed: 0/4 passed, baseline 5/5 (Fisher p = 0.008)."
        assert result.undecided == []

    def test_the_undecided_reason_says_how_many_and_why(self) -> None:
        (result,) = gate({"cells": [cell(3, 0, 2)]}, None, fail_on_regression=False, min_pass_rate=1.0)
        assert result.undecided == ["2 of 5 trial(s) inconclusive (at most 0 allowed): provider: 500 after 4 attempts"]

    def test_junit_skips_an_undecided_cell_and_fails_a_failed_one(self) -> None:
        results = gate(
            {"cells": [cell(3, 0, 2), cell(1, 2, scenario_name="Find flights")]},
            None,
            fail_on_regression=False,
            min_pass_rate=1.0,
        )
        suite = ET.fromstring(to_junit(results, title="t").split("\n", 1)[1]).find("testsuite")
        assert suite is not None
        assert (suite.get("failures"), suite.get("skipped"), suite.get("errors")) == ("1", "1", "0")
        first, second = suite.findall("testcase")
        skipped = first.find("skipped")
        assert skipped is not None and first.find("failure") is None
        assert skipped.get("message", "").startswith("2 of 5 trial(s) inconclusive")
        assert second.find("failure") is not None and second.find("skipped") is None

    def test_cell_text_shows_inconclusive_trials_apart(self) -> None:
        assert cell_text(cell(3, 1, 1)) == "3/4 flaky +1 inconclusive"
        assert cell_text(cell(5, 0)) == "5/5"
        assert cell_text(cell(5, 0, self_judging=True)) == "5/5 self-judging"
