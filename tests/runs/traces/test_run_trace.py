"""A real run (the demo server over stdio, a scripted model, one injected fault) exported as an OpenTelemetry
trace: the OTLP/JSON of the API and the run page, read back with the SDK's own parser; pushed by the worker's task
to a local collector that decodes the protobuf; and a collector that is down, which leaves the run as it was."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from google.protobuf.json_format import MessageToJson
from opentelemetry.proto_json.collector.trace.v1.trace_service import ExportTraceServiceRequest

from runs.models import Run
from runs.services import run_start
from runs.tasks import execute_run
from runs.traces.export import push_run_trace
from tests.api.conftest import key_client
from tests.base import PASSWORD, make_alice, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import ScriptedServer
from tests.runs.fault_injection.helpers import answer, call, demo_server, run_with_faults
from tests.runs.traces.collector import Collector

SECRET_HEADER = "Bearer otlp-SECRET-token"


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    yield server
    server.close()


def faulted_run(scripted: ScriptedServer, *, via_task: bool = False) -> Run:
    alice = make_alice()
    server = demo_server("stdio", owner=alice)
    return run_with_faults(
        scripted,
        server,
        alice,
        {"faults": [{"name": "broken weather", "kind": "error", "on_call": 1, "message": "Upstream is kaput"}]},
        call("get_weather"),
        call("get_weather", call_id="call_2"),
        answer("Seventeen degrees and sunny."),
        via_task=via_task,
    )


def attributes(span: Any) -> dict[str, Any]:
    values = {}
    for item in span.attributes:
        value = item.value
        values[item.key] = next(
            v
            for v in (value.string_value, value.int_value, value.double_value, value.bool_value, value.array_value)
            if v is not None
        )
    return values


def check_trace(request: ExportTraceServiceRequest, run: Run) -> None:
    """The spans the run's records imply, with the GenAI conventions' names and attributes."""
    [resource_spans] = request.resource_spans
    spans = [span for scope in resource_spans.scope_spans for span in scope.spans]
    names = [span.name for span in spans]
    assert names == [
        f"invoke_agent {run.scenario.name}",
        "chat gpt-4o",
        "chat gpt-4o",
        "chat gpt-4o",
        "execute_tool get_weather",
        "execute_tool get_weather",
    ]
    root, *children = spans
    assert {span.parent_span_id for span in children} == {root.span_id}
    assert len({span.trace_id for span in spans}) == 1
    assert attributes(root)["gen_ai.operation.name"] == "invoke_agent"
    assert attributes(root)["evalhub.verdict"] == run.verdict == "pass"
    chat = attributes(spans[1])
    assert (chat["gen_ai.operation.name"], chat["gen_ai.usage.input_tokens"], chat["gen_ai.usage.output_tokens"]) == (
        "chat",
        1200,
        30,
    )
    first_model = run.model_calls[0]
    assert spans[1].end_time_unix_nano - spans[1].start_time_unix_nano == first_model["latency_ms"] * 1_000_000
    faulted, real = spans[4], spans[5]
    assert attributes(faulted)["evalhub.fault.effect"] == "error"
    assert attributes(faulted)["error.type"] == "injected_fault"
    assert faulted.status.code == 2  # STATUS_CODE_ERROR
    assert real.status.code == 0 and "error.type" not in attributes(real)
    took = run.all_tool_calls[1]["durationMs"]
    assert real.end_time_unix_nano - real.start_time_unix_nano == took * 1_000_000


@pytest.mark.django_db(transaction=True)
class RunTraceTests:
    def test_the_api_gives_otlp_json_the_sdk_parses(self, scripted: ScriptedServer) -> None:
        run = faulted_run(scripted)
        client = key_client(run.started_by, ["evaluate:read"])
        response = client.get(f"/api/v1/runs/{run.pk}/trace")
        assert response.status_code == 200, response.content[:300]
        check_trace(ExportTraceServiceRequest.from_json(response.content), run)
        # Names and numbers only: no prompt or result text leaves EvalHub.
        assert b"Seventeen" not in response.content and b"kaput" not in response.content

    def test_the_run_page_offers_it_and_the_download_needs_login(self, scripted: ScriptedServer) -> None:
        run = faulted_run(scripted)
        anonymous = Client().get(f"/runs/{run.pk}/trace.json")
        assert anonymous.status_code == 302
        client = Client()
        client.login(username="alice", password=PASSWORD)
        page = client.get(f"/runs/{run.pk}/").content.decode()
        assert f'href="/runs/{run.pk}/trace.json"' in page
        assert 'id="fault-timeline"' in page and "broken weather" in page
        download = client.get(f"/runs/{run.pk}/trace.json")
        assert download["Content-Disposition"] == f'attachment; filename="evalhub-run-{run.pk}-trace.json"'
        check_trace(ExportTraceServiceRequest.from_json(download.content), run)

    def test_the_worker_task_pushes_it_to_the_collector(
        self, scripted: ScriptedServer, collector: Collector, settings: Any
    ) -> None:
        settings.EVALHUB_OTLP_ENDPOINT = collector.endpoint
        settings.EVALHUB_OTLP_HEADERS = {"Authorization": SECRET_HEADER}
        run = faulted_run(scripted, via_task=True)
        [(path, headers, received)] = collector.received
        assert (path, headers["authorization"], headers["content-type"]) == (
            "/v1/traces",
            SECRET_HEADER,
            "application/x-protobuf",
        )
        # The protobuf the collector decoded is the OTLP/JSON the API gives.
        assert len(received.resource_spans[0].scope_spans[0].spans) == 6
        assert "execute_tool get_weather" in MessageToJson(received)
        # Pushing again sends the same trace (its ids come from the run): a collector keeps one.
        assert push_run_trace(run)
        assert collector.received[1][2].resource_spans[0].scope_spans[0].spans[0].trace_id == (
            received.resource_spans[0].scope_spans[0].spans[0].trace_id
        )

    def test_a_collector_that_is_down_fails_no_run_and_logs_no_secret(
        self, scripted: ScriptedServer, settings: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        scripted.script(call("get_weather"), answer("18 °C."))
        alice = make_alice()
        scenario = make_scenario(
            demo_server("stdio", owner=alice), provider=make_scripted_provider(scripted.base_url), model="gpt-4o"
        )
        run = run_start(scenario=scenario, user=alice)
        closed = Collector()
        closed.close()  # nothing listens on its port any more
        settings.EVALHUB_OTLP_ENDPOINT = closed.endpoint
        settings.EVALHUB_OTLP_HEADERS = {"Authorization": SECRET_HEADER}
        with caplog.at_level(logging.WARNING):
            execute_run.apply(args=[run.pk])
        run.refresh_from_db()
        assert (run.status, run.verdict) == ("done", "pass")
        warnings = [r.getMessage() for r in caplog.records if r.name == "runs.traces.export"]
        assert warnings and "127.0.0.1" in warnings[0]
        assert all("SECRET" not in record.getMessage() for record in caplog.records)
