"""`manage.py evalhub run`: each exit code, with real processes (the command, a Celery worker, a web server)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

import httpx
import pytest
from django.contrib.auth.models import User

from evalhub.api_keys.models import ApiKey
from evalhub.scenarios.models import Scenario, Tag
from runs.models import Run
from tests.base import (
    PROJECT_DIR,
    PYTHON,
    child_env,
    free_port,
    make_demo_server,
    make_scenario,
    make_scripted_provider,
    wait_until,
)
from tests.conftest import TEST_QUEUE


def evalhub(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """The command as CI runs it: its own process, stdout not a terminal."""
    return subprocess.run(
        [PYTHON, "manage.py", "evalhub", "run", *args],
        cwd=PROJECT_DIR,
        env=child_env(EVALHUB_CELERY_QUEUE=TEST_QUEUE, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def smoke(scenario: Scenario) -> Scenario:
    scenario.tags.add(Tag.objects.get_or_create(name="smoke")[0])
    return scenario


@pytest.mark.worker
class CiExitCodeTests:
    def test_it_exits_0_when_every_run_passed_and_writes_junit_and_json(
        self, worker: subprocess.Popen[bytes], tmp_path: Path
    ) -> None:
        server = make_demo_server()
        smoke(make_scenario(server, name="Weather in Paris"))
        smoke(make_scenario(server, name="Weather in Lisbon", prompt="Weather at latitude 38.72, longitude -9.14?"))
        junit, report = tmp_path / "junit.xml", tmp_path / "runs.json"

        result = evalhub("--tag", "smoke", "--wait", "--junit", str(junit), "--json", str(report))

        assert result.returncode == 0, result.stdout + result.stderr
        assert "Scenario" in result.stdout and "Weather in Lisbon" in result.stdout and "PASS" in result.stdout
        assert "2/2 passed" in result.stdout
        assert ": done · score 1.00 · PASS" in result.stdout  # plain progress lines: stdout is not a terminal
        assert ": called get_weather (" in result.stdout  # each tool call, from the run's live events
        suite = ET.parse(junit).getroot().find("testsuite")
        assert suite is not None and (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "0")
        assert '"tool_names": [' in report.read_text()

    def test_it_exits_1_when_a_run_fails_its_threshold(self, worker: subprocess.Popen[bytes], tmp_path: Path) -> None:
        make_scenario(make_demo_server(), name="Flights too", expected_tools=["get_weather", "search_flights"])
        junit = tmp_path / "junit.xml"

        result = evalhub("--scenario", "Flights too", "--wait", "--junit", str(junit))

        assert result.returncode == 1, result.stdout + result.stderr
        assert "FAIL" in result.stdout and "0/1 passed" in result.stdout
        failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
        assert failure is not None and failure.get("type") == "agent"
        assert "never called search_flights" in (failure.get("message") or "").lower()

    def test_it_exits_1_below_min_score(self, worker: subprocess.Popen[bytes]) -> None:
        make_scenario(make_demo_server(), expected_tools=["get_weather", "search_flights"], pass_threshold=0.5)

        result = evalhub("--scenario", "Weather in Paris", "--wait", "--min-score", "0.9")

        assert result.returncode == 1, result.stdout + result.stderr
        assert "0/1 passed (min score 0.90)" in result.stdout

    def test_it_exits_1_when_the_server_cannot_start_its_failure_not_an_outage(
        self, worker: subprocess.Popen[bytes]
    ) -> None:
        make_scenario(make_demo_server(command="/nonexistent/mcp-server", args=[]))

        result = evalhub("--scenario", "Weather in Paris", "--wait")

        assert result.returncode == 1, result.stdout + result.stderr
        assert "FAIL" in result.stdout
        assert "server: " in result.stderr and "/nonexistent/mcp-server" in result.stderr

    def test_it_exits_3_when_the_model_provider_is_down_an_outage_decides_nothing(
        self, worker: subprocess.Popen[bytes]
    ) -> None:
        down = make_scripted_provider("http://127.0.0.1:9/v1", name="Down")
        make_scenario(make_demo_server(), provider=down, model="gpt-4o")

        result = evalhub("--scenario", "Weather in Paris", "--wait")

        assert result.returncode == 3, result.stdout + result.stderr
        assert "INCONCLUSIVE" in result.stdout and "provider: " in result.stderr

    def test_it_exits_2_when_the_quota_is_used_up(self, transactional_db: None) -> None:
        make_scenario(make_demo_server())

        result = evalhub("--scenario", "Weather in Paris", "--wait", EVALHUB_DAILY_RUN_QUOTA="0")

        assert result.returncode == 2
        assert "Daily quota of 0 runs reached" in result.stderr
        assert not Run.objects.exists()

    def test_it_exits_2_when_no_worker_picks_the_runs_up(self, transactional_db: None) -> None:
        make_scenario(make_demo_server())

        result = evalhub("--scenario", "Weather in Paris", "--wait", "--worker-timeout", "2")

        assert result.returncode == 2
        assert "No worker picked up the runs within 2 s" in result.stderr

    def test_it_exits_2_for_an_unknown_scenario_or_tag(self, transactional_db: None) -> None:
        assert "No scenario is named 'Nope'" in evalhub("--scenario", "Nope").stderr
        assert evalhub("--tag", "nothing-has-it").returncode == 2

    def test_without_wait_it_starts_and_exits_0(self, transactional_db: None) -> None:
        make_scenario(make_demo_server())

        result = evalhub("--scenario", "Weather in Paris")

        assert result.returncode == 0, result.stderr
        run = Run.objects.get()
        assert f"Started 1 run(s) on this EvalHub: #{run.pk}" in result.stdout


@pytest.fixture
def web(transactional_db: None) -> Iterator[str]:
    """A real EvalHub web server on the test database, for the command's --url mode."""
    yield from web_server()


@pytest.fixture
def web_without_streams(transactional_db: None) -> Iterator[str]:
    """The same, refusing every event stream as one with all its streams taken does (429)."""
    yield from web_server(EVALHUB_EVENT_STREAMS_PER_USER="0")


def web_server(**env: str) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=PROJECT_DIR,
        env=child_env(EVALHUB_CELERY_QUEUE=TEST_QUEUE, **env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"

    def answering() -> bool:
        try:
            return httpx.get(f"{url}/api/v1/health", timeout=1).status_code in (200, 503)
        except httpx.HTTPError:
            return False

    try:
        wait_until(answering, timeout=30, what="the web server to answer")
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)


@pytest.mark.worker
class CiRemoteTests:
    def test_it_runs_through_the_api_of_a_remote_evalhub(
        self, worker: subprocess.Popen[bytes], web: str, alice: User, tmp_path: Path
    ) -> None:
        smoke(make_scenario(make_demo_server()))
        _, key = ApiKey.issue(user=alice, name="ci", scopes=["evaluate:read", "evaluate:write"])
        junit = tmp_path / "junit.xml"

        result = evalhub(
            "--url", web, "--tag", "smoke", "--wait", "--poll", "0.5", "--junit", str(junit), EVALHUB_API_KEY=key
        )

        assert result.returncode == 0, result.stdout + result.stderr
        assert f"on {web}/api/v1" in result.stdout
        assert ET.parse(junit).getroot().find("testsuite/testcase") is not None
        run = Run.objects.get()
        assert run.started_by == alice

    def test_refused_an_event_stream_it_polls_and_the_gate_still_passes(
        self, worker: subprocess.Popen[bytes], web_without_streams: str, alice: User
    ) -> None:
        smoke(make_scenario(make_demo_server()))
        _, key = ApiKey.issue(user=alice, name="ci", scopes=["evaluate:read", "evaluate:write"])

        result = evalhub("--url", web_without_streams, "--tag", "smoke", "--wait", "--poll", "0.5", EVALHUB_API_KEY=key)

        assert result.returncode == 0, result.stdout + result.stderr
        assert "refused an event stream" in result.stderr and "EVALHUB_EVENT_STREAMS_PER_USER" in result.stderr
        assert "Polling every 0.5 s instead" in result.stderr
        assert Run.objects.get().status == Run.Status.DONE

    def test_a_bad_key_is_an_infrastructure_error(self, web: str) -> None:
        started = time.monotonic()

        result = evalhub("--url", web, "--tag", "smoke", EVALHUB_API_KEY="ehk_wrong")

        assert result.returncode == 2
        assert "401" in result.stderr and "not valid" in result.stderr
        # The 401 ends it: well before the 60 s a missing worker would take.
        assert time.monotonic() - started < 60
