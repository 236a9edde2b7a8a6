from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.management import call_command


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
class SeedDemoTests:
    def test_it_creates_the_demo_login_and_prints_its_password_once(self) -> None:
        output = seed()

        password = output.split("password: ")[1].split()[0]
        assert authenticate(username="demo", password=password) is not None
        assert User.objects.get(username="demo").is_staff

    def test_running_it_again_keeps_the_login_and_hides_the_password(self) -> None:
        first = seed()
        second = seed()

        password = first.split("password: ")[1].split()[0]
        assert password not in second
        assert "changepassword demo" in second
        assert User.objects.filter(username="demo").count() == 1
        assert authenticate(username="demo", password=password) is not None
