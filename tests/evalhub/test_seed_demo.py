from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings

from evalhub.demo import DEMO_SCENARIOS, demo_login_lines
from tests.base import PROJECT_DIR


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


@pytest.fixture(autouse=True)
def own_var_dir(tmp_path: Path) -> Iterator[Path]:
    with override_settings(VAR_DIR=tmp_path):
        yield tmp_path


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

    def test_the_first_password_is_repeated_by_serve_until_it_is_changed(self, own_var_dir: Path) -> None:
        password = seed().split("password: ")[1].split()[0]
        kept = own_var_dir / "demo-password"
        assert kept.read_text() == password and kept.stat().st_mode & 0o777 == 0o600

        assert demo_login_lines() == [
            f"Log in as demo with the password {password}  (kept in {kept} until you change it)"
        ]

        user = User.objects.get(username="demo")
        user.set_password("changed-by-its-owner")
        user.save()
        assert demo_login_lines() == [
            "Log in as demo (forgot its password? reset it with: .venv/bin/python manage.py changepassword demo)"
        ]
        assert not kept.exists()  # a password that no longer works is not kept


class DemoInReadmeTests:
    def test_the_readme_counts_the_scenarios_make_run_seeds(self) -> None:
        words = {4: "four", 5: "five", 6: "six", 7: "seven"}
        readme = (PROJECT_DIR / "README.md").read_text()

        assert f"{words[len(DEMO_SCENARIOS)]} scenarios (the weather one twice" in readme
