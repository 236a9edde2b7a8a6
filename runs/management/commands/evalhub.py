"""`manage.py evalhub run …`: start scenario runs for CI, wait for them, report, and exit 0 / 1 / 2.
`manage.py evalhub export|apply|validate|import-mcptest …`: suites as code (see evalhub.suites.cli).

python manage.py evalhub run --tag smoke --wait --junit report.xml
python manage.py evalhub run --tag smoke --models evalhub-offline --trials 5 --baseline pinned --fail-on-regression
EVALHUB_API_KEY=ehk_… python manage.py evalhub run --url https://evalhub.example.com --tag smoke --wait
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalhub.checkups import cli as checkup_cli
from evalhub.suites import cli as suites_cli
from runs import code_mode, server_override
from runs.ci.backends import Backend, LocalBackend, RemoteBackend
from runs.ci.experiment import ExperimentOptions, run_experiment_ci
from runs.ci.runner import EXIT_CODES, EXIT_INFRA, Options, run_ci, snapshot_mode
from runs.experiments.models import DEFAULT_TRIALS
from runs.variants.surface import VariantInvalid, parse_variant


def _names(value: str) -> list[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    if not names:
        raise ValueError("no model named")
    return names


def _modes(value: str) -> list[str]:
    modes = _names(value)
    unknown = [mode for mode in modes if mode not in code_mode.MODES]
    if unknown:
        raise argparse.ArgumentTypeError(f"not a tool mode: {unknown[0]!r} (use {', '.join(code_mode.MODES)})")
    return list(dict.fromkeys(modes))


def _header(value: str) -> tuple[str, str]:
    try:
        return server_override.header(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _header_env(value: str) -> tuple[str, str]:
    try:
        return server_override.header(value, env=True)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _variant(path: str) -> dict[str, Any]:
    """A variant of the tool surface from a JSON file (runs/variants/surface.py), checked here so a mistake names
    the file and the place in it before anything starts."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise argparse.ArgumentTypeError(f"{path} is not JSON: {exc}") from None
    try:
        return parse_variant(data, where=path).record()
    except VariantInvalid as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _count(value: str) -> int:
    number = int(value)
    if number < 0:
        raise ValueError("at least 0")
    return number


def _score(value: str) -> float:
    number = float(value)
    if not 0 <= number <= 1:
        raise ValueError("between 0 and 1")
    return number


class Command(BaseCommand):
    help = "CI: start runs of scenarios (by name or tag), optionally wait, print a summary, write JSON/JUnit."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(
            dest="action", required=True, metavar="run|checkup|" + "|".join(suites_cli.ACTIONS)
        )
        suites_cli.add_parsers(actions)
        checkup_cli.add_parser(actions)
        run = actions.add_parser(
            "run",
            help="Start runs and report on them.",
            description=self.help,
            epilog="exit codes:\n"
            + "\n".join(
                textwrap.fill(text, 100, initial_indent=f"  {code}  ", subsequent_indent="     ")
                for code, text in EXIT_CODES.items()
            ),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        run.add_argument(
            "--scenario", action="append", default=[], metavar="NAME", help="A scenario's name (repeatable)."
        )
        run.add_argument(
            "--tag", action="append", default=[], metavar="TAG", help="Every scenario with this tag (repeatable)."
        )
        run.add_argument(
            "--skip-tag", action="append", default=[], metavar="TAG", help="Leave out scenarios with this tag (wins)."
        )
        run.add_argument(
            "--include",
            action="append",
            default=[],
            metavar="PATTERN",
            help="Only scenarios whose name matches (shell-style, repeatable); alone: from every scenario.",
        )
        run.add_argument(
            "--exclude", action="append", default=[], metavar="PATTERN", help="Leave out scenarios whose name matches."
        )
        target = run.add_argument_group(
            "server override",
            "Point every run at another deployment without editing its server (a banner names what is overridden; "
            "this EvalHub only, not --url). Variables are read by the worker, allowlisted like secret references.",
        )
        target.add_argument("--server-url", default="", metavar="URL", help="Connect over HTTP here (drops a command).")
        target.add_argument(
            "--server-command", default="", metavar="CMD", help="Start this stdio command (split as a shell would)."
        )
        target.add_argument(
            "--header", type=_header, action="append", default=[], metavar="NAME=VALUE", help="Add a header."
        )
        target.add_argument(
            "--header-env",
            type=_header_env,
            action="append",
            default=[],
            metavar="NAME=ENVVAR",
            help="Add a header read from the worker's environment.",
        )
        target.add_argument(
            "--server-auth-bearer-env",
            type=server_override.env_name,
            default=None,  # argparse would check a default "" as a name
            metavar="ENVVAR",
            help="Send Authorization: Bearer with this variable's value.",
        )
        run.add_argument("--model", default="", help="Run on this model instead of each scenario's own.")
        run.add_argument(
            "--wait", action="store_true", help="Wait for the runs to finish (exit code says how they did)."
        )
        run.add_argument("--json", type=Path, metavar="FILE", help="Write the full run records as JSON.")
        run.add_argument("--junit", type=Path, metavar="FILE", help="Write a JUnit XML report (one test case per run).")
        run.add_argument("--min-score", type=_score, metavar="0.7", help="Also fail runs scoring below this.")
        run.add_argument(
            "--acknowledge-side-effects",
            action="store_true",
            help="Accept that execution-level scenarios call their server's tools for real (recorded per server).",
        )
        run.add_argument(
            "--judges",
            choices=["all", "calibrated"],
            default="",
            help="calibrated: only judges whose verdicts agree with people's reviews (Cohen's κ) decide the runs' "
            "verdicts; the others are advisory. Default: the server's EVALHUB_GATE_JUDGES.",
        )
        run.add_argument(
            "--update-snapshots",
            action="store_true",
            help="Re-record every $snapshot the runs reach (they pass). Without it, under CI=true a check that would "
            "record a first snapshot fails instead.",
        )
        experiment = run.add_argument_group(
            "experiments",
            "With --models (and --trials, --modes): every scenario on every model, several trials each (always waits).",
        )
        experiment.add_argument("--models", type=_names, default=[], metavar="A,B", help="Models, comma-separated.")
        experiment.add_argument(
            "--modes",
            type=_modes,
            default=[],
            metavar="direct,code",
            help="Run every model in each tool mode (code: the agent writes programs calling the tools).",
        )
        experiment.add_argument(
            "--variant",
            dest="variants",
            type=_variant,
            action="append",
            default=[],
            metavar="FILE",
            help="A variant of the tool surface (JSON: name, tools, hide, rename), run in a column beside the server "
            "as it is and compared with it; repeat for several.",
        )
        experiment.add_argument("--trials", type=int, choices=range(1, 21), metavar="1-20", help="Trials per cell (3).")
        experiment.add_argument("--label", default="", help="What is measured: the server's version, a git sha…")
        experiment.add_argument(
            "--baseline", default="", metavar="pinned|ID", help="Compare with the tag's pinned baseline or this one."
        )
        experiment.add_argument(
            "--fail-on-regression", action="store_true", help="Exit 1 when a cell regressed significantly."
        )
        experiment.add_argument(
            "--min-pass-rate", type=_score, metavar="0.8", help="Exit 1 when a cell passes less often than this."
        )
        experiment.add_argument(
            "--no-rerun-inconclusive",
            dest="rerun_inconclusive",
            action="store_false",
            help="Do not run an inconclusive trial a second time (by default each gets one re-run, which counts "
            "against the daily quota).",
        )
        experiment.add_argument(
            "--max-inconclusive",
            type=_count,
            default=0,
            metavar="N",
            help="Exit 3 (undecided) when a cell has more than N inconclusive trials, after each one's re-run "
            "(default 0: any outage left undecided stops the gate from passing).",
        )
        replay = run.add_argument_group(
            "record and replay",
            "Every run records a cassette of its model and MCP exchanges; a replay answers from it (no model call, "
            "no API key, no cost), marked as a replay in every report.",
        )
        replay.add_argument(
            "--record", action="store_true", help="Say at the end how to replay what these runs recorded."
        )
        replay.add_argument(
            "--replay",
            default="",
            metavar="EXPERIMENT_ID|latest",
            help="Replay an experiment's recorded runs, or (latest) the latest recorded run of each --scenario/--tag; "
            "waits, and exits as for live runs.",
        )
        replay.add_argument(
            "--replay-mcp",
            choices=["cassette", "live"],
            default="cassette",
            help="cassette: the server's answers from the cassette too (offline); live: the server as it is now, "
            "a different answer failing the run (default cassette).",
        )
        run.add_argument(
            "--url", default="", help="A remote EvalHub to run on, through its API (key in EVALHUB_API_KEY)."
        )
        run.add_argument(
            "--poll",
            type=float,
            default=5.0,
            metavar="SECONDS",
            help="Progress follows live events; re-read the runs after this long without one (default 5).",
        )
        run.add_argument(
            "--worker-timeout",
            type=float,
            default=60.0,
            metavar="SECONDS",
            help="Give up if no worker starts a run by then (default 60).",
        )
        run.add_argument(
            "--timeout",
            type=float,
            default=1800.0,
            metavar="SECONDS",
            help="Give up waiting after this long (default 1800).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "checkup":
            code = checkup_cli.run(options, self.stdout, self.stderr)  # type: ignore[arg-type]
            if code:
                sys.exit(code)
            return
        if options["action"] in suites_cli.ACTIONS:
            code = suites_cli.run(options["action"], options, self.stdout, self.stderr)  # type: ignore[arg-type]
            if code:
                sys.exit(code)
            return
        backend: Backend
        if options["url"]:
            key = os.environ.get("EVALHUB_API_KEY", "").strip()
            if not key:
                raise CommandError(
                    "--url needs an API key in EVALHUB_API_KEY (Settings → API keys).", returncode=EXIT_INFRA
                )
            backend = RemoteBackend(options["url"], key)
        else:
            backend = LocalBackend()
        try:
            override = server_override.build(
                url=options["server_url"],
                command=options["server_command"],
                headers=options["header"],
                header_env=options["header_env"],
                bearer_env=options["server_auth_bearer_env"] or "",
            )
        except ValueError as error:
            raise CommandError(str(error), returncode=EXIT_INFRA) from None
        ci_options = Options(
            scenarios=options["scenario"],
            tags=options["tag"],
            skip_tags=options["skip_tag"],
            include=options["include"],
            exclude=options["exclude"],
            server_override=override,
            model=options["model"],
            wait=options["wait"] or bool(options["replay"]),
            json_path=options["json"],
            junit_path=options["junit"],
            min_score=options["min_score"],
            acknowledge_side_effects=options["acknowledge_side_effects"],
            judges=options["judges"],
            snapshots=snapshot_mode(update=options["update_snapshots"], environ=os.environ),
            poll_seconds=options["poll"],
            worker_timeout=options["worker_timeout"],
            timeout=options["timeout"],
            replay=options["replay"].strip().lower(),
            replay_mcp=options["replay_mcp"],
            record=options["record"],
        )
        if options["models"] or options["trials"] or options["modes"] or options["variants"]:
            if options["replay"]:
                raise CommandError(
                    "--replay replays recorded runs as they ran: leave out --models, --trials, --modes and --variant.",
                    returncode=EXIT_INFRA,
                )
            if not options["models"]:
                raise CommandError(
                    "--trials, --modes and --variant need --models (comma-separated model names).",
                    returncode=EXIT_INFRA,
                )
            plan = ExperimentOptions(
                models=options["models"],
                trials=options["trials"] or DEFAULT_TRIALS,
                modes=options["modes"],
                variants=options["variants"],
                label=options["label"],
                baseline=options["baseline"],
                fail_on_regression=options["fail_on_regression"],
                min_pass_rate=options["min_pass_rate"],
                max_inconclusive=options["max_inconclusive"],
                rerun_inconclusive=options["rerun_inconclusive"],
            )
            code = run_experiment_ci(backend, ci_options, plan, out=self.stdout, err=self.stderr)  # type: ignore[arg-type]
        else:
            code = run_ci(
                backend,
                ci_options,
                out=self.stdout,  # type: ignore[arg-type]
                err=self.stderr,  # type: ignore[arg-type]
                tty=self.stdout.isatty(),
            )
        if code:
            sys.exit(code)
