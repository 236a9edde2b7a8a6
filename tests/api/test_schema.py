"""Property-based tests of the whole API against its own OpenAPI schema (schemathesis, in-process over WSGI).

Every operation gets a bounded number of generated requests, valid and invalid, with a key holding all scopes;
every response must match the schema (status codes, content types, bodies) and none may be a 5xx. Left out:
inspecting a server (it starts the server's command or opens a connection; test_servers.py uses real servers),
testing or generating a scorer (each example would run user code in the sandbox for up to its time limit, or
ask a model; test_scorers.py covers them), and the live event stream (a valid request streams for minutes by design;
test_events.py covers it, errors included).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TypeVar

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import override_settings
from hypothesis import HealthCheck, assume, settings
from schemathesis.checks import positive_data_acceptance
from schemathesis.core.errors import InvalidSchema
from schemathesis.core.parameters import ParameterLocation
from schemathesis.core.result import Err, Ok
from schemathesis.pytest.lazy import get_all_tests

from evalhub.api_keys.models import ApiKey
from evalhub.wsgi import application
from tests.api.conftest import ALL
from tests.base import make_demo_server, make_scenario

T = TypeVar("T")

# Generated requests per operation, beside the coverage phase's boundary and negative values (all of them, on
# both tiers). 40 → 100 cost about 35 s more CPU for the whole file (55 s → 89 s measured) and found a body `false`
# accepted. Request validation runs before any query and is the same code on both tiers, so the production tier
# (PostgreSQL) takes a quarter of them: what reaches the database there is every coverage case plus 25 examples
# per operation. The costliest operation (PATCH a scenario) took 129 s in tier 1 and 63 s in tier 2 of one CI run.
EXAMPLES_PER_OPERATION = 25 if os.environ.get("EVALHUB_TEST_TIER") == "production" else 100
# Not checked: "every schema-valid request is accepted". Creating and editing goes through the UI's forms, whose
# rules JSON Schema cannot state (names unique, the referenced server, provider, model and scorers must exist, a URL
# for HTTP servers and a command for stdio ones…): such requests answer 400 VALIDATION_ERROR by design. Everything
# else is checked, including that schema-violating requests are rejected and that no answer is a 5xx.


def built(result: Ok[T] | Err[InvalidSchema]) -> T:
    """What schemathesis built from the schema; an operation it could not build fails the test with its reason."""
    if isinstance(result, Err):
        raise result.err()
    return result.ok()


WHOLE_API = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application).exclude(
    path_regex=r"/inspect$|^/api/v1/scorers/(generate|\{[^}]+\}/test)$|^/api/v1/events$"
)
# One test per operation, its cases built when it runs. Schemathesis builds an operation's coverage cases (boundary
# and negative values) with its test, about 80 s of CPU for the whole API: built at collection (`schema.parametrize()`),
# every pytest process paid that for all 57 operations before running anything; built here, the process that runs an
# operation pays for that operation only.
OPERATIONS = [built(result).label for result in WHOLE_API.get_all_operations()]


@pytest.fixture
def bearer(alice: User) -> Iterator[dict[str, str]]:
    """alice (staff) with every scope, some records to find, and a rate limit no example run can reach."""
    scenario = make_scenario(make_demo_server())
    scenario.tags.create(name="smoke")
    _, raw = ApiKey.issue(user=alice, name="schemathesis", scopes=ALL)
    # As Django's test client does: a real WSGI request would close the test transaction's connection at its end.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        with override_settings(EVALHUB_API_RATE_LIMIT=1_000_000):
            yield {"Authorization": f"Bearer {raw}"}
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


# The same examples on every run, so CI is repeatable (random, deeper passes: raise max_examples, drop derandomize).
EXAMPLES = settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.django_db
@pytest.mark.parametrize("operation", OPERATIONS)
def test_the_api_matches_its_schema(operation: str, bearer: dict[str, str]) -> None:
    (test,) = get_all_tests(
        schema=WHOLE_API.include(name=operation), test_func=check_case, settings=EXAMPLES, given_kwargs={}
    )
    _, run_cases = built(test)
    run_cases(bearer=bearer)


def check_case(case: schemathesis.Case, bearer: dict[str, str]) -> None:
    # The key replaces any generated Authorization header: an example whose only violation is that header is a
    # valid request once sent, which schemathesis would still expect to be rejected.
    negative = {where for where, part in (case.meta.components.items() if case.meta else ()) if part.mode.is_negative}
    assume(negative != {ParameterLocation.HEADER})
    case.call_and_validate(headers=bearer, excluded_checks=[positive_data_acceptance])
