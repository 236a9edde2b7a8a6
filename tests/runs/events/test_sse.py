"""The wire format both ways, and the rule that hands out event ids in order without losing one still being written."""

from __future__ import annotations

from runs.events.sse import Event, GapWatch, comment, frame, parse, retry


def lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def test_a_framed_event_parses_back_to_itself_and_comments_are_keepalives() -> None:
    sent = Event(42, "run.step", {"run_id": 7, "tool_name": "get_weather\nsecond line", "duration_ms": 12})

    wire = retry() + comment("connected") + frame(sent) + comment("keepalive")

    assert list(parse(lines(wire))) == [None, sent, None]
    assert frame(sent).startswith("id: 42\nevent: run.step\ndata: {")
    assert frame(sent).count("\n") == 4  # one data line: a newline inside a value is escaped by JSON


def test_an_event_without_an_id_and_events_split_across_crlf_lines_parse() -> None:
    wire = 'event: stream.gap\r\ndata: {"id":null,"type":"stream.gap",\r\ndata: "data":{"after":3}}\r\n\r\n'

    assert list(parse(lines(wire))) == [Event(None, "stream.gap", {"after": 3})]


def test_data_that_is_not_our_json_object_is_skipped() -> None:
    wire = 'event: x\ndata: not json\n\nevent: y\ndata: [1]\n\nid: 5\nevent: z\ndata: {"data": {}}\n\n'

    assert list(parse(lines(wire))) == [Event(5, "z", {})]


def test_ids_that_follow_on_are_released_at_once() -> None:
    watch = GapWatch(last=10, wait=1.0)

    assert watch.release([11, 12, 13], now=0.0) == 3
    assert watch.last == 13


def test_a_hole_holds_back_what_follows_until_it_fills() -> None:
    watch = GapWatch(last=10, wait=1.0)

    assert watch.release([11, 13, 14], now=0.0) == 1  # 12 may be a row whose transaction has not committed yet
    assert watch.last == 11
    assert watch.release([12, 13, 14], now=0.5) == 3  # it committed: nothing was lost
    assert watch.last == 14


def test_a_hole_that_never_fills_is_passed_after_the_wait() -> None:
    watch = GapWatch(last=10, wait=1.0)

    assert watch.release([12], now=0.0) == 0
    assert watch.release([12], now=0.9) == 0
    assert watch.release([12, 13], now=1.0) == 2  # 11 was rolled back (or pruned): not waited on for ever
    assert watch.last == 13
    assert watch.release([15], now=1.0) == 0  # a new hole waits afresh
