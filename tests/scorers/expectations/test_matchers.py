from __future__ import annotations

from typing import Any

import pytest

from scorers.expectations.matchers import MATCHERS, MatchContext, MatchMode, check_value, describe_value, match


def messages(expected: Any, actual: Any, *, mode: MatchMode = "partial") -> list[str]:
    return [str(mismatch) for mismatch in match(expected, actual, ctx=MatchContext(mode=mode))]


class MatcherTests:
    def test_every_matcher_has_a_one_line_description(self) -> None:
        assert set(MATCHERS) >= {"$type", "$regex", "$range", "$contains", "$icontains", "$oneOf", "$any"}
        assert all(description and "\n" not in description for description in MATCHERS.values())

    @pytest.mark.parametrize(
        ("type_name", "value"),
        [
            ("string", "PAR"),
            ("number", 48.85),
            ("number", 2),
            ("integer", 2),
            ("integer", 2.0),
            ("boolean", False),
            ("object", {}),
            ("array", []),
            ("null", None),
        ],
    )
    def test_type_matches(self, type_name: str, value: Any) -> None:
        assert messages({"latitude": {"$type": type_name}}, {"latitude": value}) == []

    def test_type_fails(self) -> None:
        assert messages({"latitude": {"$type": "number"}}, {"latitude": "48.85"}) == [
            'latitude: expected a number, got "48.85"'
        ]
        assert messages({"passengers": {"$type": "integer"}}, {"passengers": 1.5}) == [
            "passengers: expected an integer, got 1.5"
        ]
        assert messages({"note": {"$type": "null"}}, {"note": ""}) == ['note: expected null, got ""']

    def test_a_boolean_is_not_a_number(self) -> None:
        assert messages({"n": {"$type": "number"}}, {"n": True}) == ["n: expected a number, got true"]
        assert messages({"n": {"$range": [0, 2]}}, {"n": True}) == ["n: expected number in [0, 2], got true"]
        assert messages({"n": 1}, {"n": True}) == ["n: expected 1, got true"]

    def test_regex_searches_strings(self) -> None:
        assert messages({"origin": {"$regex": "^PAR"}}, {"origin": "PARIS"}) == []
        assert messages({"origin": {"$regex": "^PAR"}}, {"origin": "LYS"}) == [
            'origin: expected a string matching ^PAR, got "LYS"'
        ]
        assert messages({"origin": {"$regex": "1"}}, {"origin": 1}) == ["origin: expected a string matching 1, got 1"]

    def test_range_includes_both_ends(self) -> None:
        assert messages({"latitude": {"$range": [-90, 90]}}, {"latitude": 90}) == []
        assert messages({"latitude": {"$range": [-90, 90]}}, {"latitude": -90.0}) == []
        assert messages({"latitude": {"$range": [-90, 90]}}, {"latitude": 90.5}) == [
            "latitude: expected number in [-90, 90], got 90.5"
        ]
        assert messages({"latitude": {"$range": [-90, 90]}}, {"latitude": "48.85"}) == [
            'latitude: expected number in [-90, 90], got "48.85"'
        ]

    def test_contains_is_a_substring_or_an_element(self) -> None:
        assert messages({"q": {"$contains": "Paris"}}, {"q": "hotels in Paris"}) == []
        assert messages({"tags": {"$contains": "beach"}}, {"tags": ["city", "beach"]}) == []
        assert messages({"ids": {"$contains": 2}}, {"ids": [1, 2.0]}) == []
        assert messages({"q": {"$contains": "Paris"}}, {"q": "hotels in Lyon"}) == [
            'q: expected a string containing "Paris", got "hotels in Lyon"'
        ]
        assert messages({"tags": {"$contains": "beach"}}, {"tags": ["city"]}) == [
            'tags: expected an array containing "beach", got ["city"]'
        ]
        assert messages({"q": {"$contains": "Paris"}}, {"q": 3}) == [
            'q: expected a string or array containing "Paris", got 3'
        ]

    def test_icontains_ignores_case(self) -> None:
        assert messages({"q": {"$icontains": "paris"}}, {"q": "PARIS hotels"}) == []
        assert messages({"q": {"$icontains": "paris"}}, {"q": "Lyon"}) == [
            'q: expected a string containing "paris" (ignoring case), got "Lyon"'
        ]

    def test_one_of_compares_literals(self) -> None:
        assert messages({"cabin": {"$oneOf": ["economy", "business"]}}, {"cabin": "business"}) == []
        assert messages({"stops": {"$oneOf": [0, 1]}}, {"stops": 1.0}) == []
        assert messages({"cabin": {"$oneOf": ["economy", "business"]}}, {"cabin": "first"}) == [
            'cabin: expected one of ["economy", "business"], got "first"'
        ]

    def test_one_of_escapes_an_object_that_reads_as_a_matcher(self) -> None:
        assert messages({"ref": {"$oneOf": [{"$ref": "#/a"}]}}, {"ref": {"$ref": "#/a"}}) == []

    def test_any_needs_only_the_key(self) -> None:
        assert messages({"passengers": {"$any": True}}, {"passengers": None}) == []
        assert messages({"passengers": {"$any": True}}, {}) == ["passengers: missing"]


class LiteralTests:
    def test_numbers_compare_by_value(self) -> None:
        assert messages({"passengers": 1}, {"passengers": 1.0}) == []
        assert messages({"latitude": 48.85}, {"latitude": 48.86}) == ["latitude: expected 48.85, got 48.86"]

    def test_strings_and_null(self) -> None:
        assert messages({"origin": "PAR"}, {"origin": "LYS"}) == ['origin: expected "PAR", got "LYS"']
        assert messages({"note": None}, {"note": "x"}) == ['note: expected null, got "x"']

    def test_partial_compares_only_the_given_keys_at_every_depth(self) -> None:
        expected = {"trip": {"origin": "PAR", "filters": {"stops": 0}}}
        actual = {"trip": {"origin": "PAR", "cabin": "economy", "filters": {"stops": 0, "max_price": 900}}, "x": 1}
        assert messages(expected, actual) == []

    def test_exact_reports_extra_keys_at_every_depth(self) -> None:
        expected = {"trip": {"origin": "PAR", "filters": {"stops": 0}}}
        actual = {"trip": {"origin": "PAR", "filters": {"stops": 0, "max_price": 900}}, "foo": 1}
        assert messages(expected, actual, mode="exact") == ['trip.filters: extra key "max_price"', 'extra key "foo"']

    def test_nested_mismatches_name_their_path(self) -> None:
        expected = {"trip": {"legs": [{"origin": {"$regex": "^PAR"}}, {"origin": "NYC"}]}}
        actual = {"trip": {"legs": [{"origin": "LYS"}, {}]}}
        assert messages(expected, actual) == [
            'trip.legs[0].origin: expected a string matching ^PAR, got "LYS"',
            "trip.legs[1].origin: missing",
        ]

    def test_arrays_compare_element_wise_with_the_same_length(self) -> None:
        assert messages({"ids": [1, 2]}, {"ids": [1, 2]}) == []
        assert messages({"ids": [1, 2]}, {"ids": [2, 1]}) == ["ids[0]: expected 1, got 2", "ids[1]: expected 2, got 1"]
        assert messages({"ids": [1, 2]}, {"ids": [1, 2, 3]}) == ["ids: expected 2 items, got 3: [1, 2, 3]"]
        assert messages({"ids": [1]}, {"ids": "1"}) == ['ids: expected an array, got "1"']

    def test_objects_inside_arrays_are_partial_too(self) -> None:
        assert messages({"legs": [{"origin": "PAR"}]}, {"legs": [{"origin": "PAR", "date": "2025-06-01"}]}) == []
        assert messages({"legs": [{"origin": "PAR"}]}, {"legs": [{"origin": "PAR", "d": 1}]}, mode="exact") == [
            'legs[0]: extra key "d"'
        ]

    def test_an_object_expected_where_something_else_came(self) -> None:
        assert messages({"latitude": 1}, None) == ["expected an object, got null"]

    def test_odd_keys_are_quoted_in_paths(self) -> None:
        assert messages({"x-api-key": "a"}, {"x-api-key": "b"}) == ['["x-api-key"]: expected "a", got "b"']


class DescribeValueTests:
    def test_it_names_each_checked_leaf(self) -> None:
        expected = {
            "latitude": {"$range": [-90, 90]},
            "origin": {"$regex": "^PAR"},
            "passengers": 1,
            "filters": {"cabin": {"$oneOf": ["economy"]}},
            "note": {"$any": True},
        }
        assert describe_value(expected) == [
            "latitude in [-90, 90]",
            "origin matching ^PAR",
            "passengers = 1",
            'filters.cabin one of ["economy"]',
            "note (any value)",
        ]


class CheckValueTests:
    def test_it_suggests_a_known_matcher(self) -> None:
        assert check_value({"latitude": {"$rnage": [-90, 90]}}, "args") == [
            'args.latitude: unknown matcher "$rnage"; did you mean "$range"?'
        ]

    def test_it_checks_matcher_arguments(self) -> None:
        assert check_value({"a": {"$range": [90, -90]}, "b": {"$range": [1]}}, "args") == [
            "args.a: $range needs two ordered numbers [min, max], got [90, -90]",
            "args.b: $range needs two ordered numbers [min, max], got [1]",
        ]
        assert check_value({"a": {"$type": "strng"}}, "args") == [
            'args.a: $type needs one of string, number, integer, boolean, object, array, null, got "strng"; '
            'did you mean "string"?'
        ]
        [regex_error] = check_value({"a": {"$regex": "("}}, "args")
        assert regex_error.startswith("args.a: $regex is not a valid regular expression (missing )")
        assert regex_error.endswith(', got "("')
        assert check_value({"a": {"$oneOf": []}, "b": {"$any": 1}, "c": {"$icontains": 3}}, "args") == [
            "args.a: $oneOf needs a non-empty array of values, got []",
            "args.b: $any needs true, got 1",
            "args.c: $icontains needs a string, got 3",
        ]

    def test_it_does_not_read_one_of_options_as_matchers(self) -> None:
        assert check_value({"a": {"$oneOf": [{"$nope": 1}]}}, "args") == []
