from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

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
