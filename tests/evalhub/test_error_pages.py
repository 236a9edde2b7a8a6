"""404 and 500 pages in the app's style (DEBUG is off in tests, as in production), and the favicon."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.test import Client, RequestFactory
from django.views.defaults import server_error


@pytest.mark.django_db
class ErrorPageTests:
    def test_a_missing_page_is_explained_in_the_apps_style(self, alice_client: Client) -> None:
        response = alice_client.get("/no-such-page/")

        html = response.content.decode()
        assert response.status_code == 404
        assert "<h1>Page not found</h1>" in html and 'href="/static/css/evalhub.css"' in html
        assert '<a class="button button-primary" href="/">Back to EvalHub</a>' in html

    def test_a_server_error_page_needs_no_context(self) -> None:
        response = server_error(RequestFactory().get("/"))

        html = response.content.decode()
        assert response.status_code == 500
        assert "<h1>Something went wrong</h1>" in html and "the details are in the server's log" in html


@pytest.mark.django_db
class FaviconTests:
    def test_every_page_links_the_favicon(self, alice_client: Client, client: Client) -> None:
        link = '<link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml">'

        assert link in alice_client.get("/scenarios/").content.decode()
        assert link in client.get("/login/").content.decode()
        assert finders.find("img/favicon.svg") is not None
