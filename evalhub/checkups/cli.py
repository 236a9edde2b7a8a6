"""`manage.py evalhub checkup --url … | --command … | --server NAME`: check a server up here, print the report,
write it as JSON/JUnit/Markdown/HTML, and exit 0 (passed), 1 (failed: an error finding) or 2 (infrastructure: an
unknown server, the quota used up, the shipped evals' runs not finished within --timeout).

Parts 1-3 run in this process (no worker needed); the shipped evals' runs go to the worker like any run, and the
command waits for them (--no-shipped-evals skips them).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, TextIO

from evalhub.checkups import report
from evalhub.checkups.models import Checkup
from evalhub.checkups.services import checkup_execute, checkup_settle, checkup_start, server_on_the_fly
from evalhub.servers.models import McpServer
from runs.quota import QuotaExceeded

EXIT_PASSED, EXIT_FAILED, EXIT_INFRA = 0, 1, 2


def add_parser(actions: Any) -> None:
    parser = actions.add_parser(
        "checkup",
        help="Check a server up: static quality, protocol compliance, runtime sweep, shipped evals.",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--server", metavar="NAME", help="A registered server's name.")
    target.add_argument("--url", help="A Streamable HTTP server's URL (registered on the fly).")
    target.add_argument("--command", help='A stdio server\'s command line, e.g. "npx -y pkg" (registered on the fly).')
    parser.add_argument(
        "--acknowledge-side-effects",
        action="store_true",
        help="Also call destructive-looking tools and run execution-level evals (recorded for the server).",
    )
    parser.add_argument("--no-shipped-evals", action="store_true", help="Do not run the server's shipped evals.")
    for fmt in ("json", "junit", "markdown", "html"):
        parser.add_argument(f"--{fmt}-report", dest=f"{fmt}_path", type=Path, metavar="FILE", help=f"Write {fmt}.")
    parser.add_argument(
        "--timeout", type=float, default=600.0, metavar="SECONDS", help="Wait this long for shipped evals' runs."
    )


def run(options: dict[str, Any], out: TextIO, err: TextIO) -> int:
    try:
        server = _server(options)
    except (McpServer.DoesNotExist, ValueError) as exc:
        err.write(f"{exc}\n")
        return EXIT_INFRA
    try:
        checkup = checkup_start(
            server=server,
            user=None,
            acknowledge_side_effects=options["acknowledge_side_effects"],
            shipped_evals=not options["no_shipped_evals"],
            queue=False,
        )
    except QuotaExceeded as exc:
        err.write(f"{exc}\n")
        return EXIT_INFRA
    started = time.monotonic()
    err.write(f"Checking up {server.name} (check-up #{checkup.pk})…\n")
    checkup_execute(checkup_id=checkup.pk)
    checkup = Checkup.objects.select_related("server").get(pk=checkup.pk)
    while not checkup.is_done:
        if time.monotonic() - started > options["timeout"]:
            err.write(f"The shipped evals' runs {checkup.run_ids} did not finish within {options['timeout']:g} s.\n")
            return EXIT_INFRA
        time.sleep(1.0)
        checkup = checkup_settle(checkup=Checkup.objects.select_related("server").get(pk=checkup.pk))
    data = checkup.to_dict()
    out.write(report.to_markdown(data) + "\n")
    out.write(f"Wall time {time.monotonic() - started:.1f} s.\n")
    for fmt in ("json", "junit", "markdown", "html"):
        if path := options.get(f"{fmt}_path"):
            path.write_text(report.render(data, fmt).content, encoding="utf-8")
    return EXIT_PASSED if checkup.passed else EXIT_FAILED


def _server(options: dict[str, Any]) -> McpServer:
    if options["server"]:
        try:
            return McpServer.objects.get(name=options["server"])
        except McpServer.DoesNotExist:
            raise McpServer.DoesNotExist(f"No server named {options['server']!r}; see the Servers page.") from None
    return server_on_the_fly(url=options["url"] or "", command=options["command"] or "")
