"""The magic wand learning from reviewed runs: a few of them go into the prompt as examples, and the draft it
writes is tested straight away on the other reviewed runs (the same test as *Test against people's reviews*).

The runs are the latest reviewed ones of the server whose tools the wand was given (of any server without one: the
wand writes a new scorer, attached to no scenario yet). Examples
are the newest `EXAMPLES_PER_VERDICT` passed and failed runs (scorers.generate_examples); the draft is measured
only on the held-out rest, so its agreement is not flattered by runs it has seen. Nothing is saved, and nothing
here touches any run's verdict: the draft scores nothing until someone saves it and attaches it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from evalhub.servers.models import McpServer
from runs.models import Run
from runs.scoring import run_record
from scorers.calibration.draft import DRAFT_RUNS, DraftTest, draft_test
from scorers.calibration.services import HUMAN_VERDICTS
from scorers.generate import Generated
from scorers.generate_examples import EXAMPLES_PER_VERDICT, Example, split_examples
from scorers.models import Scorer
from scorers.services import scorer_generate


@dataclass(frozen=True)
class LearnedDraft:
    generated: Generated
    examples: list[Run]
    held_out: list[Run]
    test: DraftTest | None  # None when no run was left to test on


def reviewed(*, server: McpServer | None) -> QuerySet[Run]:
    """The reviewed runs the wand may learn from and test on: finished, with a human verdict, of `server`."""
    runs = Run.objects.filter(status=Run.Status.DONE, human_verdict__in=HUMAN_VERDICTS)
    return runs.filter(server=server) if server is not None else runs


def generate_from_reviews(
    *, description: str, tools: Sequence[Mapping[str, Any]], server: McpServer | None = None
) -> LearnedDraft:
    """Scorer code written with reviewed runs as examples, and its agreement with people on the held-out ones."""
    latest = reviewed(server=server).select_related("scenario").order_by("-created_at", "-id")
    runs = list(latest[: DRAFT_RUNS + 2 * EXAMPLES_PER_VERDICT])
    chosen, held_out = split_examples(runs, lambda run: run.human_verdict)
    examples = [
        Example(
            run_id=run.pk,
            verdict=run.human_verdict,
            notes=[note for note in run.reviews.order_by("id").values_list("note", flat=True) if note],
            record=run_record(run),
        )
        for run in chosen
    ]
    generated = scorer_generate(description=description, tools=tools, examples=examples)
    held_out = held_out[:DRAFT_RUNS]
    test = None
    if held_out:
        test = draft_test(content=Scorer(kind=Scorer.Kind.CODE, code=generated.code), runs=held_out)
    return LearnedDraft(generated, chosen, held_out, test)
