"""/api/v1/runs/{id}/report and /api/v1/runs/report: every format, as a download, with the export scope."""

from __future__ import annotations

import csv
import io
from xml.etree import ElementTree as ET

import pytest
from django.test import Client

from runs.models import Run
from tests.api.helpers import assert_error
from tests.api.records import finished_run
from tests.base import make_demo_server, make_scenario


@pytest.fixture
def two_runs(db: None) -> tuple[Run, Run]:
    server = make_demo_server()
    good = finished_run(make_scenario(server, name="Weather in Paris"), score=1.0, passed=True)
    bad = finished_run(make_scenario(server, name="Flights | Lisbon"), score=0.5, passed=False)
    return good, bad


@pytest.mark.django_db
class RunReportTests:
    def test_markdown_has_the_summary_tools_cost_and_failing_reasons(
        self, writer_api: Client, two_runs: tuple[Run, Run]
    ) -> None:
        _, bad = two_runs

        response = writer_api.get(f"/api/v1/runs/{bad.pk}/report?format=markdown")

        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/markdown")
        assert response["Content-Disposition"] == f'attachment; filename="evalhub-run-{bad.pk}.md"'
        text = response.content.decode()
        assert "Flights \\| Lisbon" in text  # table cells escape pipes
        assert "FAIL" in text and "get_weather" in text and "$0.0012" in text
        assert "Default scorer scored 0.50: Missing expected tools: get_forecast." in text

    def test_junit_has_one_testcase_with_the_scorer_reasons_as_failure(
        self, writer_api: Client, two_runs: tuple[Run, Run]
    ) -> None:
        _, bad = two_runs

        root = ET.fromstring(writer_api.get(f"/api/v1/runs/{bad.pk}/report?format=junit").content)

        suite = root.find("testsuite")
        assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("1", "1")
        failure = root.find("testsuite/testcase/failure")
        assert failure is not None
        assert (failure.get("message"), failure.get("type")) == ("agent: never called get_forecast", "agent")
        assert "Missing expected tools" in (failure.text or "")

    def test_junit_skips_an_inconclusive_run_with_its_reason_never_a_failure(self, writer_api: Client) -> None:
        outage = finished_run(
            make_scenario(make_demo_server()),
            score=None,
            passed=None,
            status=Run.Status.ERROR,
            verdict="inconclusive",
            failure_cause="provider",
            failure_reason="provider: 429 after 4 attempts in 7 s",
            error={"step": "model call 1", "kind": "rate_limited", "message": "429 after 4 attempts in 7 s"},
        )

        root = ET.fromstring(writer_api.get(f"/api/v1/runs/{outage.pk}/report?format=junit").content)

        suite = root.find("testsuite")
        assert suite is not None
        assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "0", "1")
        skipped = root.find("testsuite/testcase/skipped")
        assert skipped is not None
        assert skipped.get("message") == "inconclusive — provider: 429 after 4 attempts in 7 s"
        markdown = writer_api.get(f"/api/v1/runs/{outage.pk}/report?format=markdown").content.decode()
        assert "INCONCLUSIVE" in markdown and "0 failed, 1 inconclusive" in markdown

    def test_html_is_a_standalone_page(self, writer_api: Client, two_runs: tuple[Run, Run]) -> None:
        good, _ = two_runs

        response = writer_api.get(f"/api/v1/runs/{good.pk}/report?format=html")

        text = response.content.decode()
        assert response["Content-Type"].startswith("text/html")
        assert "<title>EvalHub run #" in text and "Weather in Paris" in text and "PASS" in text
        assert "/static/" not in text

    def test_json_is_the_full_record(self, writer_api: Client, two_runs: tuple[Run, Run]) -> None:
        good, _ = two_runs

        body = writer_api.get(f"/api/v1/runs/{good.pk}/report").json()

        assert body["summary"]["passed"] == 1
        assert body["runs"][0]["transcript"]["finalText"] == "It is sunny."

    def test_min_score_fails_a_passing_run(self, writer_api: Client, two_runs: tuple[Run, Run]) -> None:
        good, _ = two_runs
        Run.objects.filter(pk=good.pk).update(score=0.8)

        text = writer_api.get(f"/api/v1/runs/{good.pk}/report?format=markdown&min_score=0.9").content.decode()

        assert "below --min-score 0.90" in text

    def test_an_unknown_format_is_a_validation_error(self, writer_api: Client, two_runs: tuple[Run, Run]) -> None:
        assert_error(writer_api.get(f"/api/v1/runs/{two_runs[0].pk}/report?format=pdf"), 400, "VALIDATION_ERROR")

    def test_it_needs_the_export_scope(self, reader_api: Client, two_runs: tuple[Run, Run]) -> None:
        assert_error(reader_api.get(f"/api/v1/runs/{two_runs[0].pk}/report"), 403, "INSUFFICIENT_PERMISSIONS")

    def test_a_missing_run_is_404(self, writer_api: Client) -> None:
        assert_error(writer_api.get("/api/v1/runs/777/report"), 404, "RESOURCE_NOT_FOUND")


@pytest.mark.django_db
class RunsReportTests:
    def test_csv_exports_the_filtered_list(self, writer_api: Client, two_runs: tuple[Run, Run]) -> None:
        _, bad = two_runs

        response = writer_api.get("/api/v1/runs/report?format=csv&passed=false")

        assert response["Content-Disposition"] == 'attachment; filename="evalhub-runs.csv"'
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert [(r["id"], r["scenario"], r["passed"], r["tools_called"]) for r in rows] == [
            (str(bad.pk), "Flights | Lisbon", "no", "get_weather")
        ]
        assert (rows[0]["verdict"], rows[0]["failure_cause"]) == ("fail", "agent")

    def test_junit_of_a_set_has_a_testcase_per_run(self, writer_api: Client, two_runs: tuple[Run, Run]) -> None:
        root = ET.fromstring(writer_api.get("/api/v1/runs/report?format=junit").content)

        assert [case.get("name") for case in root.iter("testcase")] == ["Flights | Lisbon", "Weather in Paris"]

    def test_markdown_of_a_set_summarises_it(self, writer_api: Client, two_runs: tuple[Run, Run]) -> None:
        text = writer_api.get("/api/v1/runs/report?format=markdown").content.decode()

        assert "2 run(s): **1 passed**, 1 failed" in text
        assert "pass rate 50%" in text and "cost $0.0024" in text

    def test_formula_like_names_stay_text_in_csv(self, writer_api: Client) -> None:
        finished_run(make_scenario(make_demo_server(), name="=HYPERLINK(1)"), score=1.0, passed=True)

        text = writer_api.get("/api/v1/runs/report?format=csv").content.decode()

        assert "'=HYPERLINK(1)" in text
