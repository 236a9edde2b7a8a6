"""Report and CSV downloads from the Runs list and the run page."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from tests.api.records import finished_run
from tests.base import make_demo_server, make_scenario


@pytest.mark.django_db
class RunsExportTests:
    def test_the_list_links_to_downloads_with_its_filters(self, bob_client: Client) -> None:
        finished_run(make_scenario(make_demo_server()), score=1.0, passed=True)

        text = bob_client.get(reverse("runs:list") + "?passed=yes").content.decode()

        assert 'href="/runs/export.csv?passed=yes"' in text
        assert 'href="/runs/export.junit?passed=yes"' in text

    def test_it_downloads_the_filtered_list_as_csv(self, bob_client: Client) -> None:
        server = make_demo_server()
        good = finished_run(make_scenario(server, name="A"), score=1.0, passed=True)
        finished_run(make_scenario(server, name="B"), score=0.0, passed=False)

        response = bob_client.get(reverse("runs:export", args=["csv"]) + "?passed=yes")

        assert response["Content-Disposition"] == 'attachment; filename="evalhub-runs.csv"'
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert [(r["id"], r["scenario"], r["passed"]) for r in rows] == [(str(good.pk), "A", "yes")]

    def test_an_unknown_format_is_404(self, bob_client: Client) -> None:
        assert bob_client.get(reverse("runs:export", args=["pdf"])).status_code == 404

    def test_it_requires_login(self, client: Client) -> None:
        assert client.get(reverse("runs:export", args=["csv"])).status_code == 302


@pytest.mark.django_db
class RunReportTests:
    def test_the_run_page_links_to_its_reports(self, bob_client: Client) -> None:
        run = finished_run(make_scenario(make_demo_server()), score=1.0, passed=True)

        text = bob_client.get(reverse("runs:detail", args=[run.pk])).content.decode()

        assert f'href="/runs/{run.pk}/report.junit"' in text

    def test_an_html_report_opens_in_the_browser_sandboxed(self, bob_client: Client) -> None:
        run = finished_run(make_scenario(make_demo_server()), score=0.5, passed=False)

        response = bob_client.get(reverse("runs:report", args=[run.pk, "html"]))

        assert response["Content-Disposition"] == f'inline; filename="evalhub-run-{run.pk}.html"'
        assert response["Content-Security-Policy"].startswith("sandbox; default-src 'none'")
        assert "Missing expected tools: get_forecast." in response.content.decode()
