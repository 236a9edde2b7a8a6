"""Values PostgreSQL cannot store (evalhub/storable.py): NaN, ±Infinity and NUL become text, and say where."""

from __future__ import annotations

import math

from evalhub.storable import Replaced, refusal, storable


class StorableTests:
    def test_a_clean_value_is_the_same_object(self) -> None:
        value = {"a": [1, 2.5, "x", None, True], "b": {"c": "d"}}

        assert storable(value) == (value, [])
        assert storable(value)[0] is value

    def test_non_finite_numbers_become_their_json_spelling_and_are_listed_with_their_path(self) -> None:
        value = {"mean": math.nan, "bounds": [1.0, math.inf, -math.inf], "n": 3}

        clean, replaced = storable(value)

        assert clean == {"mean": "NaN", "bounds": [1.0, "Infinity", "-Infinity"], "n": 3}
        assert replaced == [
            Replaced("mean", "NaN"),
            Replaced("bounds[1]", "Infinity"),
            Replaced("bounds[2]", "-Infinity"),
        ]
        assert math.isnan(value["mean"])  # the input is left as it was

    def test_nul_characters_in_text_and_keys_become_the_replacement_character(self) -> None:
        clean, replaced = storable({"a\x00b": ["ok", "c\x00"]})

        assert clean == {"a\ufffdb": ["ok", "c\ufffd"]}
        assert replaced == [Replaced("a\x00b", "NUL"), Replaced("a\x00b[1]", "NUL")]

    def test_a_bare_value_is_at_the_root(self) -> None:
        assert storable(math.nan) == ("NaN", [Replaced("(root)", "NaN")])

    def test_a_problem_seen_from_outside_has_the_outer_path(self) -> None:
        assert Replaced("mean", "NaN").under("expected") == Replaced("expected.mean", "NaN")
        assert Replaced("[2]", "NaN").under("args") == Replaced("args[2]", "NaN")
        assert Replaced("(root)", "NaN").under("result") == Replaced("result", "NaN")


class RefusalTests:
    def test_it_says_where_and_what_to_send_instead(self) -> None:
        assert refusal(Replaced("expected.mean", "NaN")) == (
            'expected.mean: NaN is not a JSON number; send a finite number, null, or the text "NaN" as a string.'
        )
        assert refusal(Replaced("name", "NUL")) == "name: must not contain NUL (\\u0000) characters."

    def test_lone_surrogates_are_refused_like_nul(self) -> None:
        assert storable({"a": "x\ud800y"}) == ({"a": "x\ufffdy"}, [Replaced("a", "lone surrogate")])
        assert storable("\U0001f600") == ("\U0001f600", [])  # a whole astral character is text
        assert refusal(Replaced("a", "lone surrogate")) == (
            "a: must not contain a lone surrogate (\\ud800-\\udfff), which is not Unicode text."
        )
