"""runs.cassettes.matching: the first field where a request differs from the recorded one. Pure."""

from __future__ import annotations

import pytest

from runs.cassettes.matching import AGENT, SERVER, CassetteMiss, Difference, first_difference


class FirstDifferenceTests:
    def test_equal_values_have_none(self) -> None:
        value = {"messages": [{"role": "user", "content": "hi"}], "n": 1}
        assert first_difference(value, {"n": 1.0, "messages": [{"content": "hi", "role": "user"}]}) is None

    @pytest.mark.parametrize(
        ("expected", "actual", "path"),
        [
            ({"messages": [{"content": "a"}]}, {"messages": [{"content": "b"}]}, "messages[0].content"),
            (
                {"tools": [{"function": {"description": "x"}}]},
                {"tools": [{"function": {}}]},
                "tools[0].function.description",
            ),
            ({"a": [1, 2]}, {"a": [1, 2, 3]}, "a[2]"),
            ({"a": 1}, {"a": 1, "b": 2}, "b"),
            ({"a": True}, {"a": 1}, "a"),
            ({"a": {"b": 1}}, {"a": [1]}, "a"),
        ],
    )
    def test_it_names_the_first_differing_field(self, expected: object, actual: object, path: str) -> None:
        found = first_difference(expected, actual)
        assert found is not None and found.path == path

    def test_a_missing_side_is_quoted_as_absent(self) -> None:
        found = first_difference({"a": [1, 2]}, {"a": [1]})
        assert found is not None and found.to_dict() == {"field": "a[1]", "expected": "2", "actual": "(absent)"}

    def test_long_values_are_quoted_short(self) -> None:
        shown = Difference("x", "y" * 1000, "z").to_dict()
        assert len(shown["expected"]) == 300 and shown["expected"].endswith("…")


class CassetteMissTests:
    def test_its_kind_says_whose_side_changed(self) -> None:
        def miss(side: str) -> CassetteMiss:
            return CassetteMiss(step="model call 1", side=side, what="model request 1", difference=None, note="gone.")

        assert [miss(AGENT).kind, miss(SERVER).kind, miss("").kind] == [
            "cassette_miss",
            "server_changed",
            "cassette_cut",
        ]

    def test_its_message_and_details_name_the_field(self) -> None:
        miss = CassetteMiss(
            step="tool call t",
            side=SERVER,
            what="tools/call #2 answer",
            difference=Difference("response.result.content[0].text", "12 C", "54 F"),
        )

        assert miss.message == (
            "Cassette miss at tools/call #2 answer: response.result.content[0].text differs: "
            "recorded '12 C', now '54 F'."
        )
        assert miss.details()["cassette_miss"]["field"] == "response.result.content[0].text"
