from __future__ import annotations

import pytest
from django.test import Client, override_settings

from runs.models import DailyRunQuota
from runs.quota import utc_today

SECTIONS = {
    "/scenarios/": "No scenarios yet",
    "/scorers/": "No custom scorers yet",
    "/runs/": "No runs yet",
    "/servers/": "No MCP servers registered",
    "/settings/": "Model providers",
}


@pytest.mark.django_db
class ShellTests:
    @pytest.mark.parametrize("path", [*SECTIONS, "/"])
    def test_every_page_requires_login(self, client: Client, path: str) -> None:
        response = client.get(path)

        assert response.status_code == 302
        assert response["Location"] == f"/login/?next={path}"

    @pytest.mark.parametrize(("path", "empty_state"), SECTIONS.items())
    def test_each_section_explains_what_to_do_first(self, alice_client: Client, path: str, empty_state: str) -> None:
        response = alice_client.get(path)

        assert response.status_code == 200
        assert empty_state in response.content.decode()

    def test_the_sidebar_links_every_section(self, alice_client: Client) -> None:
        html = alice_client.get("/runs/").content.decode()

        for label, path in [
            ("Scenarios", "/scenarios/"),
            ("Scorers", "/scorers/"),
            ("Runs", "/runs/"),
            ("Servers", "/servers/"),
            ("Settings", "/settings/"),
            ("API docs", "/api/v1/docs"),
        ]:
            assert f'<a href="{path}"' in html
            assert f">{label}</a>" in html
        assert '<a href="/runs/" aria-current="page">Runs</a>' in html

    def test_home_opens_scenarios(self, alice_client: Client) -> None:
        assert alice_client.get("/")["Location"] == "/scenarios/"

    def test_the_header_shows_todays_quota(self, alice_client: Client) -> None:
        assert "0 / 100 runs today" in alice_client.get("/runs/").content.decode()

        DailyRunQuota.objects.create(day=utc_today(), used=37)

        assert "37 / 100 runs today" in alice_client.get("/runs/").content.decode()

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=5)
    def test_the_quota_limit_comes_from_settings(self, alice_client: Client) -> None:
        DailyRunQuota.objects.create(day=utc_today(), used=5)

        html = alice_client.get("/runs/").content.decode()

        assert "5 / 5 runs today" in html
        assert "quota-exhausted" in html

    def test_pages_load_htmx_from_our_own_static_files(self, alice_client: Client) -> None:
        html = alice_client.get("/scenarios/").content.decode()

        assert '<script src="/static/vendor/htmx/htmx.min.js" defer></script>' in html
        assert "//unpkg.com" not in html
        assert "cdn" not in html.lower()

    def test_logout_is_a_csrf_protected_post(self, alice_client: Client) -> None:
        html = alice_client.get("/scenarios/").content.decode()

        assert 'method="post" action="/logout/"' in html
        assert "csrfmiddlewaretoken" in html
