"""Resource and prompt scenarios in suite files: export, apply, and errors naming the scenario's pointer."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from evalhub.suites.services import suite_apply, suite_export
from evalhub.suites.source import load
from evalhub.suites.validation import InvalidSuite, read_suite
from tests.base import make_demo_server, make_scenario

URL = "https://evalhub.example/schema.json"
SUITE = """\
version: 1
servers:
- name: weather
  transport: stdio
  command: python
scenarios:
- name: airport
  server: weather
  model: evalhub-offline
  prompt: Read one airport.
  level: resource
  primitive: {PRIMITIVE}
"""


def problems(text: str) -> list[str]:
    with pytest.raises(InvalidSuite) as raised:
        read_suite(text, "evals.yaml")
    return [str(problem) for problem in raised.value.problems]


@pytest.mark.django_db
class PrimitiveSuiteTests:
    def test_a_resource_scenario_exports_and_applies_back(self, alice: User) -> None:
        primitive = {"template": "travel://airports/{code}", "arguments": {"code": "CDG"}}
        make_scenario(make_demo_server(), name="Airport", level="resource", primitive=primitive)
        text = suite_export(schema_url=URL)
        (entry,) = load(text).data["scenarios"]
        assert (entry["level"], entry["primitive"]) == ("resource", primitive)

        Scenario.objects.all().delete()
        suite_apply(text=text, user=alice)

        scenario = Scenario.objects.get(name="Airport")
        assert (scenario.level, scenario.primitive) == ("resource", primitive)

    @pytest.mark.parametrize(
        ("primitive", "message"),
        [
            ("null", "a resource-level scenario needs primitive"),
            ('{"template": "x://a/{id}", "arguments": {}}', "needs a value for id"),
            ('{"uri": "x://a", "bogus": 1}', "bogus"),
        ],
    )
    def test_a_bad_primitive_is_named(self, primitive: str, message: str) -> None:
        found = problems(SUITE.replace("{PRIMITIVE}", primitive))

        assert any("/scenarios/0/primitive" in problem and message in problem for problem in found), found
