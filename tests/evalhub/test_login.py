from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client, override_settings

from tests.base import PASSWORD


@pytest.mark.django_db
class LoginTests:
    def test_it_logs_in_and_returns_to_the_page_asked_for(self, client: Client, alice: User) -> None:
        response = client.post("/login/?next=/runs/", {"username": "alice", "password": PASSWORD, "next": "/runs/"})

        assert response.status_code == 302
        assert response["Location"] == "/runs/"

    def test_a_wrong_password_says_so_and_keeps_the_username(self, client: Client, alice: User) -> None:
        response = client.post("/login/", {"username": "alice", "password": "nope"})

        html = response.content.decode()
        assert response.status_code == 200
        assert "Please enter a correct username and password" in html
        assert 'value="alice"' in html

    def test_the_form_is_csrf_protected(self, alice: User) -> None:
        client = Client(enforce_csrf_checks=True)

        response = client.post("/login/", {"username": "alice", "password": PASSWORD})

        assert response.status_code == 403


@pytest.mark.django_db
class LoginHelpTests:
    def test_a_demo_install_says_where_its_password_is_and_how_to_reset_it(self, client: Client, tmp_path) -> None:  # type: ignore[no-untyped-def]
        with override_settings(VAR_DIR=tmp_path):
            call_command("seed_demo", stdout=StringIO())

        page = client.get("/login/").content.decode()

        assert "printed its password at the end of its start-up output" in page
        assert "manage.py changepassword demo" in page

    def test_an_install_without_the_demo_login_says_nothing_of_it(self, client: Client, alice: User) -> None:
        assert "changepassword" not in client.get("/login/").content.decode()
