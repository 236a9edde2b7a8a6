from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from runs.models import Run
from scorers.models import Scorer
from tests.base import PASSWORD, make_demo_server, make_scenario
from tests.browser.conftest import log_in, screenshot

SIDEBAR = [
    ("Scenarios", "/scenarios/", "No scenarios yet"),
    ("Scorers", "/scorers/", "No custom scorers yet"),
    ("Runs", "/runs/", "No runs yet"),
    ("Servers", "/servers/", "No MCP servers registered"),
    ("Settings", "/settings/", "Model providers"),
]


@pytest.mark.browser
class ShellBrowserTests:
    def test_a_user_logs_in_and_visits_every_section(self, page: Page, live_server: LiveServer, alice: User) -> None:
        page.goto(f"{live_server.url}/runs/")
        expect(page).to_have_url(f"{live_server.url}/login/?next=/runs/")
        screenshot(page, "login")

        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()

        expect(page).to_have_url(f"{live_server.url}/runs/")
        expect(page.locator("#quota-meter")).to_have_text("0 / 100 runs today")
        for label, path, empty_state in SIDEBAR:
            page.locator("nav.sidebar").get_by_role("link", name=label, exact=True).click()
            expect(page).to_have_url(f"{live_server.url}{path}")
            expect(page.locator("h1")).to_have_text(label)
            expect(page.get_by_text(empty_state)).to_be_visible()
            expect(page.locator('nav.sidebar a[aria-current="page"]')).to_have_text(label)
            screenshot(page, f"section-{label.lower()}")

    def test_htmx_is_loaded_from_the_app(self, page: Page, live_server: LiveServer, alice: User) -> None:
        page.goto(f"{live_server.url}/login/")
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()

        expect(page).to_have_url(f"{live_server.url}/scenarios/")
        version = page.wait_for_function("() => window.htmx && window.htmx.version").json_value()
        assert version.startswith("2.")

    def test_a_wrong_password_is_explained(self, page: Page, live_server: LiveServer, alice: User) -> None:
        page.goto(f"{live_server.url}/login/")
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill("wrong")
        page.get_by_role("button", name="Log in").click()

        expect(page.get_by_role("alert")).to_contain_text("Please enter a correct username and password")
        screenshot(page, "login-error")

    def test_pages_fit_the_window_and_at_800_px_the_sidebar_becomes_a_bar_above_the_page(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        log_in(page, live_server)
        for width in (1280, 800):
            page.set_viewport_size({"width": width, "height": 800})
            for path in ("/scenarios/", "/scorers/new/", "/runs/", "/experiments/", "/servers/", "/settings/"):
                page.goto(f"{live_server.url}{path}")
                overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 0, f"{path} scrolls sideways by {overflow} px at {width} px"
            sidebar = page.locator("nav.sidebar").bounding_box()
            content = page.locator("main, .main").first.bounding_box()
            assert sidebar is not None and content is not None
            if width == 800:
                assert sidebar["height"] < 120 and content["y"] >= sidebar["y"] + sidebar["height"] - 1
                assert content["width"] >= 780  # the page gets the whole width
                screenshot(page, "settings-800")
            else:
                assert content["x"] >= sidebar["x"] + sidebar["width"] - 1  # beside it
        page.goto(f"{live_server.url}/api/v1/docs")
        page.get_by_role("link", name="← EvalHub").click()
        expect(page).to_have_url(f"{live_server.url}/scenarios/")

    def test_lists_with_long_names_and_commands_fit_the_window(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        long_path = "/srv/evalhub/fixtures/" + "deeply/nested/" * 8 + "travel.json"
        server = make_demo_server(
            name="Demo travel server with a rather long name for a list",
            description="Bundled with EvalHub: weather and flight tools, deterministic, no network. " * 3,
            args=["-m", "evalhub.demo_server", f"--data={long_path}", "--mode=normal"],
        )
        scenario = make_scenario(server, name="Weather in Paris, then flights to Rome, with a long name " * 2)
        Scorer.objects.create(name="Weather called " * 6, description="Checks get_weather was called. " * 6)
        run = Run.objects.create(scenario=scenario, model="evalhub-offline", status="done", score=1.0, passed=True)
        log_in(page, live_server)
        too_wide = []
        for width in (1280, 800):
            page.set_viewport_size({"width": width, "height": 800})
            for name, path in (
                ("servers", "/servers/"),
                ("scenarios", "/scenarios/"),
                ("scenario", f"/scenarios/{scenario.pk}/"),
                ("runs", "/runs/"),
                ("run", f"/runs/{run.pk}/"),
                ("scorers", "/scorers/"),
                ("experiments", "/experiments/"),
            ):
                page.goto(f"{live_server.url}{path}")
                overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
                screenshot(page, f"list-{name}-{width}")
                if overflow > 0:
                    too_wide.append(f"{path} scrolls sideways by {overflow} px at {width} px")
                for label in page.locator(".topbar .button, .topbar .link-button, .quota-text").all():
                    box = label.bounding_box()
                    if box is not None and box["height"] > 40:  # one line of a button is 36 px high
                        too_wide.append(f"{label.inner_text()!r} on {path} wraps at {width} px")
        assert too_wide == [], "; ".join(too_wide)
