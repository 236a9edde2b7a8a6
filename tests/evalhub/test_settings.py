"""Production settings, checked in child processes because settings are read once per process."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.base import PROJECT_DIR, PYTHON


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "manage.py", *args], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=120
    )


def production_env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "SECRET_KEY": "a-production-secret-key-that-is-long-and-random-0123456789-abcdefghijklmnopq",
        "ALLOWED_HOSTS": "evalhub.example.com",
        "EVALHUB_VAR_DIR": str(tmp_path),
    }


# The fixed key development installs signed with before var/secret_key existed.
LEGACY_DEVELOPMENT_KEY = "django-insecure-evalhub-development-only"
PRINT_KEY = "from django.conf import settings; print(settings.SECRET_KEY)"


class ProductionSettingsTests:
    def test_check_deploy_reports_no_warnings(self, tmp_path: Path) -> None:
        result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env(tmp_path))

        assert result.returncode == 0, result.stderr
        assert "System check identified no issues (0 silenced)." in result.stdout

    def test_a_missing_secret_key_stops_start_up_with_a_clear_message(self, tmp_path: Path) -> None:
        env = production_env(tmp_path)
        del env["SECRET_KEY"]

        result = manage("check", env=env)

        assert result.returncode != 0
        assert "SECRET_KEY is not set" in result.stderr

    def test_a_bad_quota_value_names_the_variable(self, tmp_path: Path) -> None:
        result = manage("check", env={**production_env(tmp_path), "EVALHUB_DAILY_RUN_QUOTA": "lots"})

        assert result.returncode != 0
        assert "EVALHUB_DAILY_RUN_QUOTA must be a whole number, got 'lots'" in result.stderr

    def test_a_worker_concurrency_below_one_names_the_variable(self, tmp_path: Path) -> None:
        result = manage("check", env={**production_env(tmp_path), "EVALHUB_WORKER_CONCURRENCY": "0"})

        assert result.returncode != 0
        assert "EVALHUB_WORKER_CONCURRENCY must be at least 1, got 0" in result.stderr

    def test_static_files_are_served_by_the_app_in_production(self, tmp_path: Path) -> None:
        env = production_env(tmp_path)
        assert manage("collectstatic", "--noinput", "-v0", env=env).returncode == 0
        fetch = (
            "from django.templatetags.static import static; from django.test import Client; "
            "url = static('vendor/htmx/htmx.min.js'); "
            "r = Client().get(url, secure=True, HTTP_HOST='evalhub.example.com'); "
            "print(url, r.status_code, b''.join(r.streaming_content)[:40])"
        )

        result = manage("shell", "-v0", "-c", fetch, env=env)

        assert result.returncode == 0, result.stderr
        url, status, body = result.stdout.strip().splitlines()[-1].split(" ", 2)
        assert url.startswith("/static/vendor/htmx/htmx.min.") and url != "/static/vendor/htmx/htmx.min.js"
        assert status == "200"
        assert "htmx" in body


class SecondShellTests:
    """After `make run` (which sets DEBUG=1 for itself), the README's commands work in a new shell as written."""

    def test_the_readme_commands_work_with_nothing_exported(self, tmp_path: Path) -> None:
        # EVALHUB_VAR_DIR only keeps this test out of the developer's var/; nothing else is set.
        new_shell = {"PATH": "/usr/bin:/bin", "EVALHUB_VAR_DIR": str(tmp_path)}
        make_run = {**new_shell, "DEBUG": "1"}
        for step in (["migrate", "--noinput", "-v0"], ["createcachetable"], ["seed_demo"]):
            assert manage(*step, env=make_run).returncode == 0

        for command in (
            ["evalhub", "--help"],
            ["changepassword", "--help"],
            ["evalhub", "export", "--tag", "smoke"],
            ["evalhub", "run", "--tag", "smoke"],
        ):
            result = manage(*command, env=new_shell)
            assert result.returncode == 0, f"manage.py {' '.join(command)}: {result.stderr}"
            assert "WARNING" not in result.stderr  # kombu's "No hostname was supplied" on every run, once

    def test_the_web_app_and_a_new_shell_share_one_key_kept_for_the_owner_only(self, tmp_path: Path) -> None:
        new_shell = {"PATH": "/usr/bin:/bin", "EVALHUB_VAR_DIR": str(tmp_path)}
        digest = (
            "import hashlib; from django.conf import settings; "
            "print(hashlib.sha256(settings.SECRET_KEY.encode()).hexdigest())"
        )

        keys = {
            manage("shell", "-v0", "-c", digest, env=env).stdout for env in (new_shell, {**new_shell, "DEBUG": "1"})
        }

        assert len(keys) == 1
        assert len(keys.pop().strip()) == 64
        assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "secret_key").read_text() != LEGACY_DEVELOPMENT_KEY

    def test_an_install_from_before_keeps_the_key_its_stored_secrets_were_encrypted_under(self, tmp_path: Path) -> None:
        (tmp_path / "evalhub.sqlite3").touch()  # an install made before var/secret_key existed

        shell = manage("shell", "-v0", "-c", PRINT_KEY, env={"PATH": "/usr/bin:/bin", "EVALHUB_VAR_DIR": str(tmp_path)})

        assert shell.stdout.strip() == LEGACY_DEVELOPMENT_KEY
