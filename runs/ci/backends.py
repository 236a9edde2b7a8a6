"""Where `manage.py evalhub run` starts and watches runs: this EvalHub's database (local) or another's API (remote).

Both speak in run records (runs.reports.records), so waiting, the summary, JSON and JUnit are the same code.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import httpx
from django.contrib.auth.models import AnonymousUser
from django.utils.dateparse import parse_datetime

from evalhub.models import WorkerHeartbeat
from evalhub.scenarios.models import Scenario
from evalhub.server_evals.services import SideEffectsUnacknowledged, side_effects_settle
from evalhub.tasks import ping_worker
from runs.cassettes.services import ReplayRefused, runs_replay_many
from runs.events import sse
from runs.events.stream import EventFilter, follow
from runs.experiments.advisory import advisory_judges
from runs.experiments.compare import experiment_compare
from runs.experiments.matrix import experiment_record
from runs.experiments.models import Experiment
from runs.experiments.services import ExperimentInvalid, experiment_start_requested
from runs.heartbeat import runs_reap_stale
from runs.models import Run
from runs.quota import QuotaExceeded
from runs.reports.records import record_queryset, run_record, run_summary, summary_queryset
from runs.run_choices import RunChoices
from runs.services import runs_start_many
from runs.variants.compare import variant_records

logger = logging.getLogger(__name__)
# After the server refuses an event stream (429: its streams are all taken), how long to poll before asking again.
STREAM_RETRY_SECONDS = 60.0


class InfraError(Exception):
    """Something other than a run's quality stopped the evaluation (exit code 2): the message says what."""


@dataclass(frozen=True)
class Started:
    run_ids: list[int]
    refused: int
    refusal: str


class Backend(Protocol):
    where: str

    def scenario_ids(self, *, names: list[str], tags: list[str]) -> list[int]: ...
    # Every scenario's {id, name, tags} (for --include, --exclude, --skip-tag), by name.
    def scenario_rows(self) -> list[dict[str, Any]]: ...
    def start(
        self,
        *,
        scenario_ids: list[int],
        choices: RunChoices,
        acknowledge_side_effects: bool,
    ) -> Started: ...
    # `evalhub run --replay`: an experiment's recorded runs, or each scenario's latest, replayed from cassettes.
    def replay(self, *, experiment_id: int | None, scenario_ids: list[int], mcp: str) -> Started: ...
    def poll(self, run_ids: list[int]) -> list[dict[str, Any]]: ...
    def records(self, run_ids: list[int]) -> list[dict[str, Any]]: ...
    def ping_worker(self) -> None: ...
    def worker_last_seen(self) -> datetime | None: ...
    # The events of these runs or this experiment, every one kept and then as they happen; None after each
    # `keepalive` seconds without one (see runs.events).
    def follow(self, only: EventFilter, *, keepalive: float) -> Iterator[sse.Event | None]: ...
    # Experiments: the bodies and answers of POST /experiments, GET /experiments/{id} and its /compare.
    def start_experiment(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def experiment(self, experiment_id: int) -> dict[str, Any]: ...
    def compare(self, experiment_id: int) -> dict[str, Any]: ...


class LocalBackend:
    """This EvalHub: the same services the UI and the API call."""

    where = "this EvalHub"

    def scenario_ids(self, *, names: list[str], tags: list[str]) -> list[int]:
        found: dict[int, None] = {}
        for name in names:
            scenario = Scenario.objects.filter(name=name).first()
            if scenario is None:
                raise InfraError(f"No scenario is named {name!r}.")
            found[scenario.pk] = None
        for tag in tags:
            ids = list(
                Scenario.objects.filter(tags__name=tag.strip().lower()).order_by("name").values_list("pk", flat=True)
            )
            if not ids:
                raise InfraError(f"No scenario has the tag {tag!r}.")
            found.update(dict.fromkeys(ids))
        return list(found)

    def scenario_rows(self) -> list[dict[str, Any]]:
        scenarios = Scenario.objects.order_by("name").prefetch_related("tags")
        return [{"id": s.pk, "name": s.name, "tags": [tag.name for tag in s.tags.all()]} for s in scenarios]

    def start(
        self,
        *,
        scenario_ids: list[int],
        choices: RunChoices,
        acknowledge_side_effects: bool,
    ) -> Started:
        scenarios = list(Scenario.objects.filter(pk__in=scenario_ids).select_related("server", "provider"))
        scenarios.sort(key=lambda s: scenario_ids.index(s.pk))
        model = choices.model
        for scenario in scenarios:
            if model and model not in scenario.provider.model_names:
                raise InfraError(
                    f"The provider of {scenario.name!r} ({scenario.provider.name}) does not serve {model!r}."
                )
        try:
            side_effects_settle(scenarios=scenarios, acknowledge=acknowledge_side_effects, user=AnonymousUser())
        except SideEffectsUnacknowledged as exc:
            raise InfraError(str(exc)) from None
        result = runs_start_many(scenarios=scenarios, user=None, choices=choices)
        return Started([run.pk for run in result.queued], result.refused, result.refusal)

    def replay(self, *, experiment_id: int | None, scenario_ids: list[int], mcp: str) -> Started:
        try:
            replays = runs_replay_many(user=None, mcp=mcp, experiment_id=experiment_id, scenario_ids=scenario_ids)
        except (ReplayRefused, QuotaExceeded) as exc:
            raise InfraError(str(exc)) from None
        return Started([run.pk for run in replays], 0, "")

    def poll(self, run_ids: list[int]) -> list[dict[str, Any]]:
        runs_reap_stale()
        runs = summary_queryset(Run.objects.filter(pk__in=run_ids)).order_by("pk")
        return [run_summary(run) for run in runs]

    def records(self, run_ids: list[int]) -> list[dict[str, Any]]:
        return [run_record(run) for run in record_queryset(Run.objects.filter(pk__in=run_ids)).order_by("pk")]

    def ping_worker(self) -> None:
        ping_worker.delay()

    def follow(self, only: EventFilter, *, keepalive: float) -> Iterator[sse.Event | None]:
        return follow(after=0, only=only, keepalive=keepalive)

    def worker_last_seen(self) -> datetime | None:
        beat = WorkerHeartbeat.latest()
        return beat.last_seen if beat else None

    def start_experiment(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            experiment = experiment_start_requested(
                tag=body.get("tag") or "",
                scenario_ids=body.get("scenario_ids"),
                models=[(m["model"], m.get("provider_id")) for m in body["models"]],
                trials=body["trials"],
                modes=body.get("modes") or [],
                label=body.get("label", ""),
                baseline=body.get("baseline_id"),
                rerun_inconclusive=body.get("rerun_inconclusive", True),
                judges=body.get("judges") or "",
                variants=body.get("variants") or [],
                user=None,
            )
        except (ExperimentInvalid, QuotaExceeded) as exc:
            raise InfraError(str(exc)) from None
        return self.experiment(experiment.pk)

    def experiment(self, experiment_id: int) -> dict[str, Any]:
        runs_reap_stale()
        experiment = Experiment.objects.get(pk=experiment_id)
        advisory = advisory_judges(experiment=experiment)
        cells = list(experiment.cells.all())
        record = experiment_record(experiment, cells, advisory=advisory)
        return {**record, "variant_comparisons": variant_records(experiment, cells)}

    def compare(self, experiment_id: int) -> dict[str, Any]:
        candidate = Experiment.objects.select_related("baseline").get(pk=experiment_id)
        assert candidate.baseline is not None
        return experiment_compare(candidate=candidate, baseline=candidate.baseline).record()


class RemoteBackend:
    """Another EvalHub, through its REST API with an API key (scopes evaluate:read and evaluate:write)."""

    def __init__(self, url: str, api_key: str, *, transport: httpx.BaseTransport | None = None) -> None:
        base = url.rstrip("/")
        base = base if base.endswith("/api/v1") else base + "/api/v1"
        self.where = base
        # httpx logs every request at INFO: that would bury the progress and the summary in a CI log.
        logging.getLogger("httpx").setLevel(logging.WARNING)
        self.client = httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {api_key}"}, timeout=30.0, transport=transport
        )

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        for _ in range(5):
            try:
                response = self.client.request(method, path, **kwargs)
            except httpx.HTTPError as exc:
                raise InfraError(f"Cannot reach EvalHub at {self.where}: {exc}.") from None
            error = _error(response)
            if error.get("code") == "RATE_LIMIT_EXCEEDED":
                time.sleep(min(float(response.headers.get("Retry-After", "5")), 60))
                continue
            if response.is_success:
                return response.json()
            message = error.get("message") or f"HTTP {response.status_code}"
            raise InfraError(f"EvalHub at {self.where} answered {response.status_code} to {method} {path}: {message}")
        raise InfraError(f"EvalHub at {self.where} kept answering 429 RATE_LIMIT_EXCEEDED.")

    def scenario_ids(self, *, names: list[str], tags: list[str]) -> list[int]:
        found: dict[int, None] = {}
        for name in names:
            items = self._call("GET", "/scenarios", params={"name": name, "limit": 1})["items"]
            if not items:
                raise InfraError(f"No scenario is named {name!r} at {self.where}.")
            found[items[0]["id"]] = None
        for tag in tags:
            ids = [s["id"] for s in self._pages("/scenarios", {"tag": tag})]
            if not ids:
                raise InfraError(f"No scenario has the tag {tag!r} at {self.where}.")
            found.update(dict.fromkeys(ids))
        return list(found)

    def _pages(self, path: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        while True:
            page = self._call("GET", path, params={**params, "limit": 200, "offset": len(items)})
            items += page["items"]
            if not page["items"] or len(items) >= page["total"]:
                return items

    def scenario_rows(self) -> list[dict[str, Any]]:
        return self._pages("/scenarios", {})

    def start(
        self,
        *,
        scenario_ids: list[int],
        choices: RunChoices,
        acknowledge_side_effects: bool,
    ) -> Started:
        if choices.server_override:
            # The API starts runs of stored servers only: a command or URL from a client's flags is not its to run.
            raise InfraError(
                "--server-url, --server-command and the header flags work on this EvalHub only (no --url)."
            )
        body: dict[str, Any] = {"scenario_ids": scenario_ids, "acknowledge_side_effects": acknowledge_side_effects}
        if choices.model:
            body["model"] = choices.model
        if choices.judges:
            body["judges"] = choices.judges
        if choices.snapshots:
            body["snapshots"] = choices.snapshots
        answer = self._call("POST", "/runs", json=body)
        return Started([run["id"] for run in answer["runs"]], answer["refused"], answer["refusal"])

    def replay(self, *, experiment_id: int | None, scenario_ids: list[int], mcp: str) -> Started:
        body: dict[str, Any] = {"mcp": mcp}
        if experiment_id is not None:
            body["experiment_id"] = experiment_id
        else:
            body["scenario_ids"] = scenario_ids
        answer = self._call("POST", "/runs/replay", json=body)
        return Started([run["id"] for run in answer["runs"]], 0, "")

    def poll(self, run_ids: list[int]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for start in range(0, len(run_ids), 200):
            found += self._pages("/runs", {"ids": run_ids[start : start + 200]})
        return sorted(found, key=lambda run: run["id"])

    def records(self, run_ids: list[int]) -> list[dict[str, Any]]:
        return [self._call("GET", f"/runs/{run_id}") for run_id in run_ids]

    def ping_worker(self) -> None:
        pass  # A remote worker proves itself by picking up the runs; /health says when it was last seen.

    def follow(self, only: EventFilter, *, keepalive: float) -> Iterator[sse.Event | None]:
        """GET /events, reconnecting with Last-Event-ID whenever the stream ends (it does every 5 minutes)."""
        # The API's shortest keepalive is 0.5 s.
        params: list[tuple[str, str | int | float | bool | None]] = [("after", 0), ("keepalive", max(keepalive, 0.5))]
        params += [("run", run_id) for run_id in only.run_ids] if len(only.run_ids) <= 500 else []
        params += [("experiment", only.experiment_id)] if only.experiment_id is not None else []
        params += [("type", kind) for kind in only.types]
        last: int | None = None
        failures = 0
        while True:
            headers = {"Last-Event-ID": str(last)} if last is not None else {}
            refused = ""
            try:
                timeout = httpx.Timeout(30.0, read=keepalive * 3 + 10)
                with self.client.stream("GET", "/events", params=params, headers=headers, timeout=timeout) as answer:
                    if not answer.is_success:
                        answer.read()
                        refused = _error(answer).get("message") or f"HTTP {answer.status_code}"
                        if answer.status_code != 429:
                            raise InfraError(f"EvalHub at {self.where} refused its event stream: {refused}")
                    else:
                        failures = 0
                        for item in sse.parse(answer.iter_lines()):
                            if item is not None and item.id is not None:
                                last = item.id
                            if item is None or not only.run_ids or item.data.get("run_id") in only.run_ids:
                                yield item
            except httpx.HTTPError as exc:
                failures += 1
                if failures > 5:
                    raise InfraError(f"Lost the event stream of EvalHub at {self.where}: {exc}.") from None
                time.sleep(min(2**failures, 30))
                yield None
            if refused:
                # No stream to spare (a limit of that server, not a verdict on the runs): each None makes the
                # waiting loop re-read the runs, so it polls, and asks for the stream again a minute later.
                logger.warning(
                    "%s refused an event stream: %s Polling every %.1f s instead.", self.where, refused, keepalive
                )
                for _ in range(max(int(STREAM_RETRY_SECONDS / keepalive), 1)):
                    time.sleep(keepalive)
                    yield None

    def worker_last_seen(self) -> datetime | None:
        seen = (self._call("GET", "/health").get("worker") or {}).get("last_seen")
        return parse_datetime(seen) if seen else None

    def start_experiment(self, body: dict[str, Any]) -> dict[str, Any]:
        return dict(self._call("POST", "/experiments", json=body))

    def experiment(self, experiment_id: int) -> dict[str, Any]:
        return dict(self._call("GET", f"/experiments/{experiment_id}"))

    def compare(self, experiment_id: int) -> dict[str, Any]:
        return dict(self._call("GET", f"/experiments/{experiment_id}/compare"))


def _error(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body.get("error") or {} if isinstance(body, dict) else {}
