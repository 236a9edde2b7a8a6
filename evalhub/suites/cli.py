"""The suite actions of `manage.py evalhub`: export, apply, validate, import-mcptest.

    manage.py evalhub export [--tag smoke] > evals.yaml
    manage.py evalhub apply -f evals.yaml [--dry-run] [--prune]
    manage.py evalhub validate -f evals.yaml
    manage.py evalhub import-mcptest -f suite.yaml [--dry-run] [-o evals.yaml] [--provider NAME --model M]

Exit codes: 0 done, 1 the file is invalid (every problem printed as file:line /pointer: message).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from evalhub.suites.mcptest import mapping_table
from evalhub.suites.schema import SCHEMA_PATH
from evalhub.suites.services import mcptest_convert, mcptest_import, suite_apply, suite_export
from evalhub.suites.validation import InvalidSuite, read_suite

ACTIONS = ("export", "apply", "validate", "import-mcptest")
DEFAULT_PROVIDER, DEFAULT_MODEL = "EvalHub offline", "evalhub-offline"


def add_parsers(actions: Any) -> None:
    export = actions.add_parser("export", help="Write servers, providers, scorers and scenarios as a suite file.")
    export.add_argument("--tag", default="", help="Only scenarios with this tag, and what they use.")
    export.add_argument("-o", "--output", type=Path, help="Write here instead of standard output.")
    apply = actions.add_parser("apply", help="Create or update everything in a suite file, by name; plan first.")
    _file(apply)
    apply.add_argument("--dry-run", action="store_true", help="Print the plan; change nothing.")
    apply.add_argument("--prune", action="store_true", help="Also delete what the file's sections do not list.")
    apply.add_argument("--user", default="", help="Record this user as the creator of new records.")
    validate = actions.add_parser("validate", help="Check a suite file against the schema; change nothing.")
    _file(validate)
    imported = actions.add_parser("import-mcptest", help="Import an mcptest v1 suite; report what did not map.")
    _file(imported, required=False)  # --mapping alone prints the table
    imported.add_argument("--dry-run", action="store_true", help="Print the report and the plan; change nothing.")
    imported.add_argument("-o", "--output", type=Path, help="Write the EvalHub suite here instead of applying it.")
    imported.add_argument("--provider", default=DEFAULT_PROVIDER, help=f"For bare model names ({DEFAULT_PROVIDER}).")
    imported.add_argument("--model", default=DEFAULT_MODEL, help=f"For tool tests and evals ({DEFAULT_MODEL}).")
    imported.add_argument("--mapping", action="store_true", help="Print the mcptest → EvalHub mapping table too.")


def _file(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    parser.add_argument("-f", "--file", required=required, help="The YAML file ('-' for standard input).")


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"{name}: cannot read it ({error}).") from None


def schema_url() -> str:
    return f"{settings.EVALHUB_PUBLIC_URL}{SCHEMA_PATH}"


def run(action: str, options: dict[str, Any], out: TextIO, err: TextIO) -> int:
    try:
        return _run(action, options, out, err)
    except InvalidSuite as invalid:
        err.write(f"{invalid}\n{len(invalid.problems)} problem(s); nothing was changed.\n")
        return 1


def _run(action: str, options: dict[str, Any], out: TextIO, err: TextIO) -> int:
    if action == "export":
        text = suite_export(schema_url=schema_url(), tag=options["tag"])
        if options["output"]:
            options["output"].write_text(text, encoding="utf-8")
            err.write(f"Wrote {options['output']}.\n")
        else:
            out.write(text)
        return 0
    name = options["file"]
    if not name:  # import-mcptest only: the others require -f
        if not options["mapping"]:
            raise CommandError(
                "import-mcptest needs -f FILE (the mcptest suite), or --mapping alone to print the mapping table."
            )
        out.write(f"{mapping_table()}\n")
        return 0
    if action == "validate":
        read_suite(_read(name), name)
        out.write(f"{name}: valid.\n")
        return 0
    user = None
    if options.get("user"):
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"No user named {options['user']!r}.")
    if action == "apply":
        plan = suite_apply(
            text=_read(name), filename=name, user=user, prune=options["prune"], dry_run=options["dry_run"]
        )
        out.write(f"{plan}\n")
        out.write("Dry run: nothing was changed.\n" if options["dry_run"] else "Applied.\n")
        return 0
    if options["output"]:
        text, conversion = mcptest_convert(
            text=_read(name),
            filename=name,
            provider=options["provider"],
            model=options["model"],
            schema_url=schema_url(),
        )
        options["output"].write_text(text, encoding="utf-8")
        err.write(
            f"{conversion.report()}\nWrote {options['output']}; apply it with `evalhub apply -f {options['output']}`.\n"
        )
        return 0
    plan, conversion = mcptest_import(
        text=_read(name),
        filename=name,
        user=user,
        dry_run=options["dry_run"],
        provider=options["provider"],
        model=options["model"],
        schema_url=schema_url(),
    )
    if options["mapping"]:
        out.write(f"{mapping_table()}\n\n")
    err.write(f"{conversion.report()}\n")
    out.write(f"{plan}\n")
    out.write("Dry run: nothing was changed.\n" if options["dry_run"] else "Imported.\n")
    return 0
