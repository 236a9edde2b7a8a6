"""`manage.py evalhub export | apply | validate`: output, exit codes, and nothing changed on a bad file."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from evalhub.scenarios.models import Scenario
from tests.evalhub.suites.install import build_install


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("evalhub", *args, stdout=out, stderr=err)
    except SystemExit as exit:
        return int(exit.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


@pytest.mark.django_db
class SuiteCommandTests:
    def test_export_then_apply_with_dry_run_and_for_real(self, alice: User, tmp_path: Path) -> None:
        build_install(alice)
        path = tmp_path / "evals.yaml"
        assert run("export", "-o", str(path))[0] == 0
        assert path.read_text().startswith(
            "# yaml-language-server: $schema=http://localhost:8000/api/v1/schemas/suite.json"
        )
        path.write_text(path.read_text().replace("prompt: Echo hello.", "prompt: Echo hello, world."))
        code, out, _ = run("apply", "-f", str(path), "--dry-run")
        assert code == 0
        assert out == (
            '~ change scenario "Remote echo"\n    prompt: "Echo hello." → "Echo hello, world."\n'
            "Plan: 0 to create, 1 to change, 0 to delete.\nDry run: nothing was changed.\n"
        )
        assert Scenario.objects.get(name="Remote echo").prompt == "Echo hello."
        assert run("apply", "-f", str(path))[0] == 0
        assert Scenario.objects.get(name="Remote echo").prompt == "Echo hello, world."
        assert run("apply", "-f", str(path))[1].startswith("No changes: EvalHub already matches the file.")

    def test_validate_reports_every_problem_and_exits_1(self, tmp_path: Path) -> None:
        path = tmp_path / "evals.yaml"
        path.write_text("servers:\n- name: x\n  transport: stdio\n  comand: python\n")
        code, out, err = run("validate", "-f", str(path))
        assert code == 1 and out == ""
        assert err == (
            f'{path}:2 /servers/0: missing required key "command"\n'
            f'{path}:4 /servers/0/comand: unknown key "comand"; did you mean "command"?\n'
            "2 problem(s); nothing was changed.\n"
        )
        path.write_text("servers:\n- name: x\n  transport: stdio\n  command: python\n")
        assert run("validate", "-f", str(path)) == (0, f"{path}: valid.\n", "")

    def test_an_unreadable_file_is_a_clear_error(self, tmp_path: Path) -> None:
        from django.core.management.base import CommandError

        with pytest.raises(CommandError, match=r"missing\.yaml: cannot read it"):
            run("validate", "-f", str(tmp_path / "missing.yaml"))
