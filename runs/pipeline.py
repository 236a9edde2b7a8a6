"""A run's steps, in order: claim → connect → act → record → score. The worker's task calls `execute_run`.

A cancel stops connect and act wherever they are (runs/cancelling.py); the run keeps what it recorded.

Each step is separate so new ways of acting (one model turn, a direct tool call, repeated trials) plug in as
new act strategies without touching connecting, recording or scoring.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.connection import Connection
from evalhub.mcp_client.errors import McpConnectionError
from evalhub.mcp_client.redact import Redactor
from evalhub.mcp_client.server_evals import LIST_CHANGED
from evalhub.model_client.client import ProviderClient
from evalhub.model_client.errors import ProviderError
from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.vault import SecretUnavailable
from runs import cancelling, code_mode, heartbeat, server_override
from runs.agent import AgentTask, run_agent
from runs.budgets import Budgets
from runs.cassettes.interposer import Interposer
from runs.cassettes.matching import CassetteMiss
from runs.cassettes.store import cassette_save, interposer_for
from runs.cassettes.tape import SIMULATOR
from runs.conversation.driver import ConversationDriver, SimulatorFailed, load_simulator_provider
from runs.conversation.spec import parse_conversation
from runs.events import publish as events
from runs.fault_injection.connection import FaultInjectingConnection
from runs.fault_injection.schedule import FaultSchedule
from runs.fault_injection.spec import InvalidFaults, parse_plan
from runs.levels import execute_directly, invoke_once
from runs.models import Run, RunEnded
from runs.primitives import get_prompt, read_resource
from runs.recorder import Recorder
from runs.run_verdict import VERDICT_FIELDS, apply_verdict
from runs.scoring import score_run
from runs.server_connection import server_connection
from runs.variables import MissingVariable, interpolate_settings
from runs.verdict.errors import SIMULATOR_STEP

logger = logging.getLogger(__name__)


class StepFailed(Exception):
    def __init__(
        self, step: str, kind: str, message: str, stderr_tail: str = "", details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.step, self.kind, self.message = step, kind, message
        # What a stdio server last wrote to stderr (redacted): the crash message promises it on the run page.
        self.stderr_tail = stderr_tail
        # More for the run's error (a cassette miss's diff).
        self.details = details or {}


def claim(run_id: int, *, worker: str) -> Run | None:
    """Move the run from queued to running atomically; a duplicate or late delivery gets None and does nothing."""
    now = timezone.now()
    with transaction.atomic():  # the claim and its event in one commit
        claimed = Run.objects.filter(pk=run_id, status=Run.Status.QUEUED).update(
            status=Run.Status.RUNNING,
            started_at=now,
            heartbeat_at=now,
            worker=worker,
            phase="connect",
            phase_started_at=now,
        )
        if not claimed:
            return None
        # server__created_by: its owner decides where the server's connections may go, and to_config() runs inside
        # the event loop, where a lazy query is not allowed.
        run = Run.objects.select_related("scenario", "server__created_by", "provider").get(pk=run_id)
        events.run_started(run)
    return run


def execute_run(run_id: int, *, worker: str) -> Run | None:
    """Claim and carry out the run, and return it; None when it was not queued any more (then nothing was done)."""
    run = claim(run_id, worker=worker)
    if run is None:
        logger.info("Run %s was not queued any more (duplicate delivery or cancelled); skipping.", run_id)
        return None
    simulator_provider = load_simulator_provider(run)
    interposer = interposer_for(run)
    # The run's writes go through the shared writer threads (runs/recorder.py); this thread needs its connection
    # again only to finish, so it does not hold one idle through minutes of model and tool calls.
    connection.close()
    # Beat through every phase, scoring included: several judges on a slow provider can take minutes, and a run
    # that stops beating is reaped as lost.
    with heartbeat.beating(run.pk):
        try:
            _execute(run, simulator_provider, interposer)
        except RunEnded:
            # Someone (the reaper, after a long silence) ended the run first. Its verdict stands: the worker does
            # not turn it back into a result, and it stopped before calling more tools for a run nobody awaits.
            logger.warning(
                "Run %s was closed as lost while its worker was still working on it (during %r); its worker "
                "stopped and left it closed.",
                run_id,
                run.phase,
            )
    return run


def _execute(run: Run, simulator_provider: Provider | None, interposer: Interposer | None) -> None:
    started = time.perf_counter()
    error: StepFailed | None = None
    try:
        _resolve_variables(run)
    except MissingVariable as exc:
        _finish(
            run, started, stop_reason=Run.StopReason.ERROR, error=StepFailed("connect", "missing_variable", str(exc))
        )
        return
    recorder = Recorder(run)
    try:
        stop_reason = anyio.run(_act_until_cancelled, run, recorder, simulator_provider, interposer)
    except StepFailed as failure:
        stop_reason, error = Run.StopReason.ERROR, failure
    except RunEnded:
        raise
    except Exception as exc:
        # A bug of ours must still end the run with what it recorded, not leave it "running".
        logger.exception("Run %s failed unexpectedly", run.pk)
        stop_reason, error = Run.StopReason.ERROR, StepFailed("worker", "internal", _internal(exc))
    if interposer is not None:
        # Before the run finishes: a finished run can be replayed at once.
        cassette_save(run=run, tape=interposer.tape)
    _finish(run, started, stop_reason=stop_reason, error=error)


def _resolve_variables(run: Run) -> None:
    """The scenario's `${name}` variables read from this worker's environment, now (runs/variables.py), into the
    run's settings and recorded prompt, before anything reads them."""
    resolved = interpolate_settings(run.settings)
    if resolved is run.settings:
        return
    run.settings = resolved
    if isinstance(run.transcript, dict) and "prompt" in run.transcript:
        run.transcript = {**run.transcript, "prompt": resolved["prompt"]}
    Run.objects.filter(pk=run.pk).update(settings=run.settings, transcript=run.transcript)


async def _act_until_cancelled(
    run: Run, recorder: Recorder, simulator_provider: Provider | None, interposer: Interposer | None
) -> str:
    """Connect and act; a cancel asked for meanwhile stops the step in flight at once (runs/cancelling.py), not
    after a slow tool or model call returns. The call it cut off is recorded as such."""
    with anyio.CancelScope() as scope:
        token = anyio.lowlevel.current_token()
        with cancelling.watching(run.pk, lambda: anyio.from_thread.run_sync(scope.cancel, token=token)):
            try:
                return await _connect_and_act(run, recorder, simulator_provider, interposer)
            except StepFailed:
                # A server or provider may answer a call abandoned halfway with an error of its own: the cancel
                # came first, and is what ended the run.
                if not scope.cancel_called:
                    raise
    await recorder.call_cut_off()
    return Run.StopReason.CANCELLED


async def _connect_and_act(
    run: Run, recorder: Recorder, simulator_provider: Provider | None, interposer: Interposer | None
) -> str:
    if run.server is None or run.provider is None:
        raise StepFailed("connect", "deleted", "The run's server or provider was deleted before it started.")
    if interposer is None:
        raise StepFailed(
            "connect", "deleted", "The cassette this run replays was deleted, or cannot be read, before it started."
        )
    try:
        conversation = parse_conversation(run.settings.get("conversation"))
    except ValueError as exc:
        # The form and the API validate it; a scenario edited around them (the admin, a script) may not be.
        raise StepFailed("connect", "invalid_conversation", f"The scenario's conversation is invalid: {exc}") from None
    try:
        fault_plan = parse_plan(run.settings.get("fault_injection"))
    except InvalidFaults as exc:
        raise StepFailed("connect", "invalid_faults", f"The run's fault injection is invalid: {exc}") from None
    simulation = conversation.simulation
    if simulation is not None and simulation.provider_id is not None and simulator_provider is None:
        raise StepFailed("connect", "deleted", "The simulated user's provider was deleted before the run started.")
    try:
        server_config = server_override.apply(run.server.to_config(), run.settings.get("server_override"))
        provider_config = run.provider.to_config()
        simulator_config = simulator_provider.to_config() if simulator_provider else None
    except SecretUnavailable as exc:
        raise StepFailed("connect", "secret_unavailable", str(exc)) from None
    # Whatever the model or a tool echoes of these is masked before it is recorded.
    simulator_secrets = simulator_config.secrets if simulator_config else []
    recorder.redact = Redactor([*server_config.secrets(), *provider_config.secrets, *simulator_secrets])
    interposer.tape.redact = recorder.redact
    task = AgentTask(
        model=run.model,
        prompt=run.settings["prompt"],
        system_prompt=run.settings.get("system_prompt", ""),
        max_turns=run.settings["max_turns"],
        max_tool_calls=run.settings["max_tool_calls"],
        max_tokens=run.settings.get("max_tokens"),
        budgets=Budgets.from_settings(run.settings),
        tool_mode=run.settings.get("tool_mode", code_mode.DIRECT),
        messages=tuple(run.settings.get("messages") or ()),
        variant=run.settings.get("variant"),
    )
    level = run.settings.get("level", Scenario.Level.SCENARIO)
    step = "connect"
    faulty: FaultInjectingConnection | None = None
    try:
        with anyio.fail_after(run.settings["time_limit_seconds"]):
            async with _connected(run.server, server_config, recorder, offline=interposer.offline) as live:
                if fault_plan.faults and live is not None:
                    # Innermost interposer: the cassette around it records what the agent saw (an offline replay
                    # answers from that record, faults included, so it injects nothing again).
                    schedule = FaultSchedule(fault_plan, trial=run.trial or 1)
                    faulty = FaultInjectingConnection(live, schedule, request_timeout=server_config.request_timeout)
                    live = faulty.as_connection()
                conn = interposer.connection(live)
                step = "list tools"
                await recorder.entering(step)
                tools = [dict(tool) for tool in await conn.list_tools()]
                if not interposer.offline:  # an offline replay keeps the snapshot its recorded run saw
                    await recorder.tools_listed(tools)
                if level == Scenario.Level.EXECUTION:
                    step = "tool call"
                    return await execute_directly(
                        tool_call=run.settings["tool_call"], tools=tools, conn=conn, recorder=recorder
                    )
                if level == Scenario.Level.RESOURCE:
                    step = "resource read"
                    return await read_resource(request=run.settings["primitive"], conn=conn, recorder=recorder)
                if level == Scenario.Level.PROMPT:
                    step = "prompt get"
                    return await get_prompt(request=run.settings["primitive"], conn=conn, recorder=recorder)
                step = "agent"
                with ExitStack() as clients:
                    client = interposer.client(lambda: clients.enter_context(ProviderClient(provider_config)))
                    if level == Scenario.Level.INVOCATION:
                        return await invoke_once(task=task, tools=tools, client=client, recorder=recorder)
                    driver = None
                    if not conversation.is_single_prompt:
                        simulator = client
                        if simulator_config is not None:
                            config = simulator_config
                            simulator = interposer.client(
                                lambda: clients.enter_context(ProviderClient(config)), SIMULATOR
                            )
                        driver = ConversationDriver(
                            conversation,
                            recorder,
                            task.budgets,
                            facts=run.settings.get("expected"),
                            simulator=simulator,
                            simulator_model=(simulation.model if simulation else "") or run.model,
                        )
                        await driver.start(task.prompt)
                    return await run_agent(
                        task=task, tools=tools, conn=conn, client=client, recorder=recorder, follow_ups=driver
                    )
    except TimeoutError:
        if faulty is not None and faulty.phase_in_flight:
            await recorder.entering(faulty.phase_in_flight)
        return Run.StopReason.TIME_LIMIT
    except CassetteMiss as exc:
        raise StepFailed(exc.step, exc.kind, recorder.redact(exc.message), details=exc.details()) from None
    except McpConnectionError as exc:
        raise StepFailed(step, str(exc.kind), recorder.redact(exc.message), exc.stderr_tail) from None
    except SimulatorFailed as exc:
        raise StepFailed(SIMULATOR_STEP, exc.kind, recorder.redact(exc.message)) from None
    except ProviderError as exc:
        raise StepFailed(f"model call {len(recorder.steps) + 1}", str(exc.kind), recorder.redact(exc.message)) from None


@asynccontextmanager
async def _connected(
    server: McpServer, config: ServerConfig, recorder: Recorder, *, offline: bool
) -> AsyncIterator[Connection | None]:
    """The run's connection (fresh, or a warm stdio server lent to it: runs/server_connection.py); a server that
    said its shipped evals changed gets them marked stale, whatever the run's outcome (evals/list proposal: a
    list_changed on any connection). None for a replay answered from its cassette alone (`offline`)."""
    if offline:
        recorder.run.server_start = {"ms": 0, "transport": "cassette", "warm": False}
        yield None
        return
    async with server_connection(server, config) as opened:
        conn = opened.conn
        # Saved with the run's end (`_finish`): the time split on its page shows it.
        recorder.run.server_start = opened.start
        try:
            yield conn
        finally:
            if recorder.cancel_seen:
                opened.discard()
            if conn.saw_notification(LIST_CHANGED):
                with anyio.CancelScope(shield=True):
                    await recorder.server_evals_changed()


def _internal(exc: Exception) -> str:
    """What users see of a bug of ours: never the exception's text, which may hold SQL and the values in it."""
    return f"EvalHub hit an internal error ({type(exc).__name__}); the details are in the worker's log."


def _finish(run: Run, started: float, *, stop_reason: str, error: StepFailed | None) -> None:
    """Leave `running`, only if nobody ended the run first (else RunEnded). A done run is saved with its score."""
    close_old_connections()
    run.refresh_from_db(fields=["cancel_requested"])
    run.stop_reason = stop_reason
    run.finished_at = timezone.now()
    run.duration_ms = round((time.perf_counter() - started) * 1000)
    if error is not None:
        run.status = Run.Status.ERROR
        run.error = {"step": error.step, "kind": error.kind, "message": error.message}
        if error.stderr_tail:
            run.error["stderr_tail"] = error.stderr_tail
        run.error.update(error.details)
    elif stop_reason == Run.StopReason.CANCELLED:
        run.status = Run.Status.CANCELLED
    else:
        run.status = Run.Status.DONE
    apply_verdict(run)
    finished = ("status", "stop_reason", "finished_at", "duration_ms", "error", "server_start", *VERDICT_FIELDS)
    if run.status != Run.Status.DONE:
        if not run.save_if_running(finished):
            raise RunEnded(f"Run {run.pk} ended before its worker finished it.")
        return
    # A run the time limit stopped keeps the phase it stopped in: its verdict (runs.verdict) says whose the time
    # was from it (a tool still running is the server's, an injected fault the harness's), now and when re-scored.
    if stop_reason != Run.StopReason.TIME_LIMIT:
        run.phase = "score"
    run.phase_started_at = timezone.now()
    if not run.save_if_running(["phase", "phase_started_at"]):
        raise RunEnded(f"Run {run.pk} ended before its worker scored it.")
    try:
        scored = score_run(run, finishing=finished)
    except Exception as exc:
        # Scorers fail on their own (recorded per scorer); reaching here is a bug of ours. Keep the run, say so.
        logger.exception("Scoring run %s failed", run.pk)
        run.status, run.stop_reason = Run.Status.ERROR, Run.StopReason.ERROR
        run.error = {"step": "score", "kind": "internal", "message": f"Scoring failed: {_internal(exc)}"}
        apply_verdict(run)
        scored = run.save_if_running(finished)
    if not scored:
        raise RunEnded(f"Run {run.pk} ended while its worker was scoring it.")
