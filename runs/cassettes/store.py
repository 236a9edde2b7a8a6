"""A run's cassette in the database: saved as the run finishes, read back by the replays and forks of the run."""

from __future__ import annotations

import logging

from runs.cassettes.fork import Boundary, Change, boundary, parse_change
from runs.cassettes.interposer import FORK, Interposer
from runs.cassettes.models import Cassette
from runs.cassettes.tape import MCP, MODEL, SIMULATOR, Tape
from runs.models import Run

logger = logging.getLogger(__name__)


def cassette_save(*, run: Run, tape: Tape) -> Cassette:
    data = tape.to_json()
    cassette, _ = Cassette.objects.update_or_create(
        run=run,
        defaults={
            "data": data,
            "size_bytes": tape.size,
            "model_exchanges": len(tape.exchanges[MODEL]) + len(tape.exchanges[SIMULATOR]),
            "mcp_exchanges": len(tape.exchanges[MCP]),
            "truncated": tape.truncated,
        },
    )
    return cassette


def interposer_for(run: Run) -> Interposer | None:
    """What the run's pipeline puts between its agent and its model and server; None when it replays a run whose
    cassette is gone (deleted since) or cannot be read, which the pipeline reports as the run's error."""
    if not run.replay:
        return Interposer(Tape())
    cassette = Cassette.objects.filter(run_id=run.replay_of_id).first() if run.replay_of_id else None
    if cassette is None:
        return None
    try:
        source = Tape.from_json(cassette.data)
        if run.replay != FORK:
            return Interposer(Tape(), source, run.replay)
        fork = run.settings["fork"]
        change = parse_change(fork["change"])
        return Interposer(Tape(), source, FORK, fork_boundary(source, fork["at_step"], change), change)
    except (KeyError, TypeError, ValueError):
        # Edited by hand (the admin, a script) since the replay was asked for: the run must still end, and say so.
        logger.warning("Run %s: the cassette or fork it replays cannot be read.", run.pk, exc_info=True)
        return None


def fork_boundary(source: Tape, at_step: int, change: Change) -> Boundary:
    return boundary(
        at_step=at_step,
        change=change,
        model_calls=len(source.exchanges[MODEL]),
        mcp_turns=[exchange.turn for exchange in source.exchanges[MCP]],
    )
