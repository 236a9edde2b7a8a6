"""`manage.py evalhub run …`: start scenario runs for CI, wait for them, report, and exit 0 / 1 / 2.
`manage.py evalhub export|apply|validate|import-mcptest …`: suites as code (see evalhub.suites.cli).

python manage.py evalhub run --tag smoke --wait --junit report.xml
python manage.py evalhub run --tag smoke --models evalhub-offline --trials 5 --baseline pinned --fail-on-regression
EVALHUB_API_KEY=ehk_… python manage.py evalhub run --url https://evalhub.example.com --tag smoke --wait
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalhub.suites import cli as suites_cli
from runs import code_mode
from runs.ci.backends import Backend, LocalBackend, RemoteBackend
from runs.ci.experiment import ExperimentOptions, run_experiment_ci
from runs.ci.runner import EXIT_CODES, EXIT_INFRA, Options, run_ci
from runs.experiments.models import DEFAULT_TRIALS


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
        actions = parser.add_subparsers(dest="action", required=True, metavar="run|" + "|".join(suites_cli.ACTIONS))
        suites_cli.add_parsers(actions)
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
        ci_options = Options(
            scenarios=options["scenario"],
            tags=options["tag"],
            model=options["model"],
            wait=options["wait"],
            json_path=options["json"],
            junit_path=options["junit"],
            min_score=options["min_score"],
            acknowledge_side_effects=options["acknowledge_side_effects"],
            judges=options["judges"],
            poll_seconds=options["poll"],
            worker_timeout=options["worker_timeout"],
            timeout=options["timeout"],
        )
        if options["models"] or options["trials"] or options["modes"]:
            if not options["models"]:
                raise CommandError(
                    "--trials and --modes need --models (comma-separated model names).", returncode=EXIT_INFRA
                )
            plan = ExperimentOptions(
                models=options["models"],
                trials=options["trials"] or DEFAULT_TRIALS,
                modes=options["modes"],
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
