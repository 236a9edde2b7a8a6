"""GET /api/v1/events: server-sent events with API-key or session auth, filters, and resuming with Last-Event-ID."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.signals import request_finished
from django.db import close_old_connections
from django.http import StreamingHttpResponse
from django.test import Client, override_settings

from evalhub.ids import MAX_ID
from runs.events import tail
from runs.events.models import RunEvent
from runs.events.publish import PRUNE_EVERY, publish
from runs.events.sse import Event, parse
from tests.api.conftest import KeyClient
from tests.api.helpers import assert_error

URL = "/api/v1/events"


class EventReader:
    """Reads a streaming response's events as they come; fails instead of waiting for ever."""

    def __init__(self, response: StreamingHttpResponse) -> None:
        assert response.status_code == 200, response.content if not response.streaming else response.status_code
        assert response["Content-Type"] == "text/event-stream"
        self.response = response
        chunks = (bytes(chunk).decode() for chunk in response.streaming_content)
        self._items: Iterator[Event | None] = parse(line for chunk in chunks for line in chunk.splitlines(True))

    def take(self, count: int, *, timeout: float = 10.0) -> list[Event]:
        got: list[Event] = []
        deadline = time.monotonic() + timeout
        for item in self._items:
            if item is not None:
                got.append(item)
                if len(got) == count:
                    return got
            if time.monotonic() > deadline:
                break
        raise AssertionError(f"got {len(got)} of {count} events: {got}")

    def quiet_for(self, keepalives: int) -> list[Event]:
        """Whatever events arrive before `keepalives` keepalive comments have passed."""
        got: list[Event] = []
        for item in self._items:
            if item is None:
                keepalives -= 1
                if keepalives == 0:
                    return got
            else:
                got.append(item)
        return got


def events(*specs: tuple[str, int | None]) -> list[int]:
    rows = [
        RunEvent(type=kind, run_id=run_id, data={"run_id": run_id, "n": i}) for i, (kind, run_id) in enumerate(specs)
    ]
    publish(rows)
    return [row.pk for row in rows]


def close_like_a_server(response: StreamingHttpResponse) -> None:
    """What a WSGI server does when a client goes: close the response. As the test client does it, without closing
    the test's database connection (request_finished would)."""
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


@pytest.fixture
def reader_of() -> Iterator[object]:
    opened: list[StreamingHttpResponse] = []

    def read(client: Client, query: str = "", **headers: str) -> EventReader:
        response = client.get(f"{URL}?keepalive=0.5&{query}", headers=headers)
        opened.append(response)
        return EventReader(response)

    yield read
    for response in opened:
        close_like_a_server(response)


# Committed rows, as in production: a stream's events come from the process's tail thread (runs/events/tail.py),
# whose own connection would not see rows inside a test's transaction.
@pytest.mark.django_db(transaction=True)
class EventStreamTests:
    def test_without_credentials_the_stream_answers_401(self, db: None) -> None:
        response = Client().get(URL)

        error = assert_error(response, 401, "AUTHENTICATION_REQUIRED")
        assert "API key" in error["message"]
        assert response["WWW-Authenticate"] == 'Bearer realm="evalhub"'

    def test_an_api_key_streams_kept_events_in_order_with_their_ids(
        self, alice: User, make_client: KeyClient, reader_of
    ) -> None:
        ids = events(("run.queued", 1), ("run.step", 2), ("quota.changed", None))

        got = reader_of(make_client(alice, "evaluate:read"), "after=0").take(3)

        assert [(e.id, e.type) for e in got] == list(zip(ids, ["run.queued", "run.step", "quota.changed"], strict=True))
        assert got[1].data["run_id"] == 2 and "timestamp" not in got[1].data  # published rows as given

    def test_a_logged_in_browser_session_may_follow_too(self, alice_client: Client, reader_of) -> None:
        (event_id,) = events(("run.finished", 9))

        (got,) = reader_of(alice_client, "after=0").take(1)

        assert (got.id, got.type) == (event_id, "run.finished")

    def test_filters_pick_runs_experiments_and_types(self, alice: User, make_client: KeyClient, reader_of) -> None:
        client = make_client(alice, "evaluate:read")
        events(("run.queued", 1), ("run.queued", 2), ("run.step", 3), ("quota.changed", None))
        RunEvent.objects.filter(run_id=2).update(experiment_id=5)

        assert [e.data["run_id"] for e in reader_of(client, "after=0&run=1&run=3").take(2)] == [1, 3]
        assert [e.data["run_id"] for e in reader_of(client, "after=0&experiment=5").take(1)] == [2]
        assert [e.type for e in reader_of(client, "after=0&type=quota.changed").take(1)] == ["quota.changed"]
        assert reader_of(client, "after=0&run=1&type=run.step").quiet_for(keepalives=2) == []

    def test_a_scenario_filter_picks_the_events_of_its_runs_new_ones_included(
        self, alice: User, make_client: KeyClient, reader_of
    ) -> None:
        rows = [
            RunEvent(type="run.queued", run_id=run_id, data={"run_id": run_id, "scenario_id": scenario_id})
            for run_id, scenario_id in [(1, 7), (2, 8), (3, 7)]
        ]
        publish(rows)

        got = reader_of(make_client(alice, "evaluate:read"), "after=0&scenario=7").take(2)

        assert [e.data["run_id"] for e in got] == [1, 3]

    def test_without_a_starting_point_only_new_events_arrive_live(
        self, alice: User, make_client: KeyClient, reader_of
    ) -> None:
        events(("run.queued", 1))
        reader = reader_of(make_client(alice, "evaluate:read"))
        assert reader.quiet_for(keepalives=1) == []  # the old event is not replayed

        (new_id,) = events(("run.started", 1))

        assert [(e.id, e.type) for e in reader.take(1)] == [(new_id, "run.started")]

    def test_last_event_id_resumes_after_it_without_losing_any_of_1200_events(
        self, alice: User, make_client: KeyClient, reader_of
    ) -> None:
        ids = events(*[("run.step", 1)] * 1200)

        got = reader_of(make_client(alice, "evaluate:read"), **{"Last-Event-ID": str(ids[0])}).take(1199)

        assert [e.id for e in got] == ids[1:]
        assert [e.data["n"] for e in got] == list(range(1, 1200))

    def test_the_last_event_id_header_wins_over_after(self, alice: User, make_client: KeyClient, reader_of) -> None:
        ids = events(("run.queued", 1), ("run.started", 1), ("run.finished", 1))

        got = reader_of(make_client(alice, "evaluate:read"), "after=0", **{"Last-Event-ID": str(ids[1])}).take(1)

        assert [e.id for e in got] == [ids[2]]

    def test_a_client_that_missed_pruned_events_is_told_before_the_rest(
        self, alice: User, make_client: KeyClient, reader_of
    ) -> None:
        with override_settings(EVALHUB_EVENTS_KEPT=100):
            ids = events(*[("run.step", 1)] * (PRUNE_EVERY + 50))
        oldest = RunEvent.objects.order_by("pk").first()
        assert oldest is not None and oldest.pk > ids[1]  # pruned as the ids passed a multiple of PRUNE_EVERY

        gap, first = reader_of(make_client(alice, "evaluate:read"), **{"Last-Event-ID": str(ids[0])}).take(2)

        assert (gap.id, gap.type) == (None, "stream.gap")
        assert gap.data == {"after": ids[0], "resumed_from": oldest.pk, "reason": "older events are no longer kept"}
        assert first.id == oldest.pk

    def test_a_last_event_id_that_is_not_a_number_is_a_400(self, alice: User, make_client: KeyClient) -> None:
        response = make_client(alice, "evaluate:read").get(URL, headers={"Last-Event-ID": "abc"})

        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert error["details"] == {"field": "Last-Event-ID"}

    @pytest.mark.parametrize("header", ["²", "9" * 5000, str(MAX_ID + 1), "-1"])
    def test_a_last_event_id_no_row_can_have_is_a_400_saying_what_is_accepted(
        self, alice: User, make_client: KeyClient, header: str
    ) -> None:
        response = make_client(alice, "evaluate:read").get(URL, headers={"Last-Event-ID": header})

        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert error["details"] == {"field": "Last-Event-ID"}
        assert f"ASCII digits 0-9, at most {MAX_ID}" in error["message"] and len(error["message"]) < 200

    @pytest.mark.parametrize("after", ["²", "9" * 5000, str(MAX_ID + 1)])
    def test_an_after_no_row_can_have_is_a_400(self, alice: User, make_client: KeyClient, after: str) -> None:
        response = make_client(alice, "evaluate:read").get(URL, {"after": after})

        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert error["message"].startswith("query.after: ")

    def test_an_id_beyond_the_newest_is_told_then_follows_from_now_on(
        self, alice: User, make_client: KeyClient, reader_of
    ) -> None:
        (newest,) = events(("run.queued", 1))
        reader = reader_of(make_client(alice, "evaluate:read"), **{"Last-Event-ID": str(newest + 1000)})

        (gap,) = reader.take(1)
        (new_id,) = events(("run.started", 1))

        assert (gap.id, gap.type) == (None, "stream.gap")
        assert gap.data == {
            "after": newest + 1000,
            "resumed_from": newest + 1,
            "reason": f"no event has this id yet (the newest is {newest})",
        }
        assert [e.id for e in reader.take(1)] == [new_id]

    def test_an_unknown_event_type_is_a_400_naming_it(self, alice: User, make_client: KeyClient) -> None:
        response = make_client(alice, "evaluate:read").get(f"{URL}?type=run.exploded")

        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert error["message"].startswith("query.params.type.0: Input should be 'run.queued'")

    @override_settings(EVALHUB_EVENT_STREAMS=1)
    def test_streams_past_the_process_limit_are_refused_until_one_closes(
        self, alice: User, make_client: KeyClient
    ) -> None:
        client = make_client(alice, "evaluate:read")
        first = client.get(URL)
        assert first.status_code == 200

        refused = client.get(URL)
        error = assert_error(refused, 429, "RATE_LIMIT_EXCEEDED")
        assert "EVALHUB_EVENT_STREAMS)" in error["message"]
        assert error["details"] == {"retry_after": 5, "limit": "EVALHUB_EVENT_STREAMS"}

        close_like_a_server(first)
        again = client.get(URL)
        assert again.status_code == 200
        close_like_a_server(again)

    @override_settings(EVALHUB_EVENT_STREAMS=3, EVALHUB_EVENT_STREAMS_PER_USER=2)
    def test_one_user_holds_only_her_share_of_the_streams_whatever_keys_she_uses(
        self, alice: User, bob: User, make_client: KeyClient, alice_client: Client
    ) -> None:
        first = make_client(alice, "evaluate:read").get(URL)
        second = make_client(alice, "evaluate:read").get(URL)
        assert (first.status_code, second.status_code) == (200, 200)

        # A third key of hers, or her browser session, is refused; the process still has a stream for bob.
        for refused in (make_client(alice, "evaluate:read").get(URL), alice_client.get(URL)):
            error = assert_error(refused, 429, "RATE_LIMIT_EXCEEDED")
            assert "You already have 2 event streams open" in error["message"]
            assert error["details"] == {"retry_after": 5, "limit": "EVALHUB_EVENT_STREAMS_PER_USER"}
        bobs = make_client(bob, "evaluate:read").get(URL)
        assert bobs.status_code == 200

        close_like_a_server(first)
        again = alice_client.get(URL)
        assert again.status_code == 200
        for response in (second, bobs, again):
            close_like_a_server(response)

    def test_open_streams_share_one_tail_and_each_gets_its_events_live(
        self, alice: User, make_client: KeyClient, reader_of
    ) -> None:
        # One thread per process reads the table for every open stream (runs/events/tail.py; issue 30).
        client = make_client(alice, "evaluate:read")
        readers = [reader_of(client, "run=1"), reader_of(client, "run=2"), reader_of(client)]
        for reader in readers:
            assert reader.quiet_for(keepalives=2) == []  # "connected", then the follower's own keepalive

        tails = [thread for thread in threading.enumerate() if thread.name == "evalhub-events-tail"]
        first, second = events(("run.step", 1), ("run.step", 2))

        assert len(tails) == 1
        assert [e.id for e in readers[0].take(1)] == [first]
        assert [e.id for e in readers[1].take(1)] == [second]
        assert [e.id for e in readers[2].take(2)] == [first, second]

    def test_a_stream_that_stopped_reading_catches_up_from_the_table_losing_nothing(
        self, alice: User, make_client: KeyClient, reader_of, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(tail, "QUEUE_BATCHES", 2)
        reader = reader_of(make_client(alice, "evaluate:read"))
        assert reader.quiet_for(keepalives=2) == []

        # Five looks of the tail while the client reads nothing: its queue of two batches overflows.
        ids = []
        for _ in range(5):
            ids += events(("run.step", 1))
            time.sleep(tail.POLL_SECONDS * 4)

        assert [e.id for e in reader.take(5)] == ids
