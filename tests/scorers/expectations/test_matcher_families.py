"""Every matcher against mcptest's reference semantics (002, "expect block (the matchers)"): a table of expected
value, actual value, and the messages (empty when it matches)."""

from __future__ import annotations

from typing import Any

import pytest

from scorers.expectations.matchers import MatchContext, Snapshots, check_value, describe_value, match
from scorers.expectations.matchers.distance import within


def messages(expected: Any, actual: Any, ctx: MatchContext | None = None) -> list[str]:
    return [str(mismatch) for mismatch in match(expected, actual, ctx=ctx)]


CONTENT = {"isError": False, "content": [{"type": "text", "text": "hello"}], "tags": ["urgent", "billing", "vip"]}

TABLE: list[tuple[str, Any, Any, list[str]]] = [
    # contains: a substring of a string
    ("contains substring", {"$contains": "hell"}, "hello", []),
    ("contains substring fails", {"$contains": "bye"}, "hello", ['expected a string containing "bye", got "hello"']),
    # contains: an object subset (extra keys ignored), nested subset, nested strings by equality
    ("contains subset", {"$contains": {"isError": False}}, CONTENT, []),
    ("contains nested subset", {"$contains": {"content": [{"text": "hello"}]}}, CONTENT, []),
    (
        "contains nested strings compare by equality",
        {"$contains": {"content": [{"text": "hell"}]}},
        CONTENT,
        [
            'expected an object containing {"content": [{"text": "hell"}]}, got {"isError": false, "content": '
            '[{"type": "text", "text": "hello"}], "tags": ["ur…'
        ],
    ),
    (
        "contains subset, missing key",
        {"$contains": {"isError": True}},
        {"content": []},
        ['expected an object containing {"isError": true}, got {"content": []}'],
    ),
    # contains: an array multiset, and one element
    ("contains multiset", {"$contains": ["urgent", "billing"]}, CONTENT["tags"], []),
    (
        "contains multiset counts repeats",
        {"$contains": ["vip", "vip"]},
        CONTENT["tags"],
        ['expected an array containing all of ["vip", "vip"], got ["urgent", "billing", "vip"]'],
    ),
    (
        "contains multiset needs a matching, not a greedy pick",
        {"$contains": [{"a": 1}, {"a": 1, "b": 2}]},
        [{"a": 1, "b": 2}, {"a": 1}],
        [],
    ),
    ("contains element", {"$contains": "vip"}, CONTENT["tags"], []),
    ("contains element by subset", {"$contains": {"a": 1}}, [{"a": 1, "b": 2}], []),
    # contains: non-string scalars compare by equality
    ("contains number equal", {"$contains": 3}, 3.0, []),
    ("contains number differs", {"$contains": 3}, 4, ["expected 3, got 4"]),
    ("contains boolean", {"$contains": False}, False, []),
    # containsAll / containsAny
    ("containsAll substrings", {"$containsAll": ["order", "shipped"]}, "order 12 shipped", []),
    (
        "containsAll names what is missing",
        {"$containsAll": ["order", "shipped", "tracking"]},
        "order 12 shipped",
        [
            'expected a string containing all of ["order", "shipped", "tracking"], got "order 12 shipped" '
            '(missing "tracking")'
        ],
    ),
    ("containsAll elements", {"$containsAll": ["search"]}, ["search", "fetch"], []),
    ("containsAll of nothing", {"$containsAll": []}, "x", []),
    ("containsAny", {"$containsAny": ["approved", "accepted"]}, "request accepted", []),
    (
        "containsAny none",
        {"$containsAny": ["approved", "accepted"]},
        "denied",
        ['expected a string containing any of ["approved", "accepted"], got "denied"'],
    ),
    ("containsAny empty never matches", {"$containsAny": []}, "x", ['expected a string containing any of [], got "x"']),
    ("containsAny in an array", {"$containsAny": ["x", "fetch"]}, ["search", "fetch"], []),
    # icontains, startsWith
    ("icontains", {"$icontains": "SUCCESS"}, "it was a success", []),
    ("startsWith", {"$startsWith": "data:image/png;base64,"}, "data:image/png;base64,iVBOR", []),
    (
        "startsWith fails",
        {"$startsWith": "data:"},
        "image",
        ['expected a string starting with "data:", got "image"'],
    ),
    ("startsWith needs a string", {"$startsWith": "1"}, 12, ['expected a string starting with "1", got 12']),
    # equals: deep equality, extra keys fail
    ("equals", {"$equals": {"a": [1, 2]}}, {"a": [1, 2.0]}, []),
    (
        "equals refuses extra keys",
        {"$equals": {"a": 1}},
        {"a": 1, "b": 2},
        ['expected exactly {"a": 1}, got {"a": 1, "b": 2}'],
    ),
    # levenshtein: at most max edits; a non-string compares as its JSON text
    ("levenshtein within", {"$levenshtein": {"value": "the quick brown fox", "max": 3}}, "the quick brown fax", []),
    ("levenshtein at the limit", {"$levenshtein": {"value": "kitten", "max": 3}}, "sitting", []),
    (
        "levenshtein over",
        {"$levenshtein": {"value": "kitten", "max": 2}},
        "sitting",
        ['expected text within 2 edits of "kitten", got "sitting" (more than 2 edits away)'],
    ),
    ("levenshtein of a number", {"$levenshtein": {"value": "120", "max": 1}}, 121, []),
    ("levenshtein counts code points", {"$levenshtein": {"value": "café", "max": 1}}, "cafe", []),
    # isJson, schema, isXml
    ("isJson", {"$isJson": True}, '{"id": 1}', []),
    (
        "isJson fails",
        {"$isJson": True},
        "{id: 1}",
        [
            'expected JSON text, got "{id: 1}" (Expecting property name enclosed in double quotes: '
            "line 1 column 2 (char 1))"
        ],
    ),
    ("isJson needs text", {"$isJson": True}, {"id": 1}, ['expected JSON text, got {"id": 1} (not a string)']),
    (
        "isJson with schema",
        {"$isJson": {"schema": {"type": "object", "required": ["id", "status"]}}},
        '{"id": 1}',
        ["expected JSON text matching a schema: 'status' is a required property"],
    ),
    ("schema", {"$schema": {"type": "array", "minItems": 1}}, [1], []),
    (
        "schema fails with where",
        {"$schema": {"type": "object", "properties": {"isError": {"type": "boolean"}}}},
        {"isError": "no"},
        ["expected a value matching the schema: 'no' is not of type 'boolean' (at $.isError)"],
    ),
    ("isXml", {"$isXml": True}, "<note><to>Tove</to></note>", []),
    ("isXml root", {"$isXml": {"root": "note"}}, "<note/>", []),
    (
        "isXml wrong root",
        {"$isXml": {"root": "note"}},
        "<memo/>",
        ["expected XML text with root <note>, got root <memo>"],
    ),
    (
        "isXml malformed",
        {"$isXml": True},
        "<note><to>Tove</note>",
        ['expected XML text, got "<note><to>Tove</note>" (mismatched tag: line 1, column 16)'],
    ),
    # not, allOf, anyOf, exactlyOne, nested
    ("not", {"$not": {"$contains": "error"}}, "all good", []),
    (
        "not fails",
        {"$not": {"$contains": "error"}},
        "an error",
        ['expected not a string containing "error", got "an error"'],
    ),
    ("not a literal", {"$not": "ok"}, "ok", ['expected not "ok", got "ok"']),
    (
        "allOf, mcptest's example",
        {"$allOf": [{"$contains": {"isError": False}}, {"$not": {"$contains": {"content": [{"text": ""}]}}}]},
        CONTENT,
        [],
    ),
    (
        "allOf lists each failing operand",
        {"$allOf": [{"$startsWith": "x"}, {"$contains": "y"}, {"$contains": "h"}]},
        "hi",
        ['expected a string starting with "x", got "hi"', 'expected a string containing "y", got "hi"'],
    ),
    (
        "anyOf",
        {"$anyOf": [{"$contains": "ok"}, {"$contains": "ready"}, {"$regex": "^accepted-\\d+$"}]},
        "accepted-12",
        [],
    ),
    (
        "anyOf none",
        {"$anyOf": ["ok", {"$contains": "ready"}]},
        "busy",
        ['expected any of: "ok"; a string containing "ready"; got "busy"'],
    ),
    ("exactlyOne", {"$exactlyOne": ["ok", "ready"]}, "ok", []),
    (
        "exactlyOne, two matched",
        {"$exactlyOne": ["ok", {"$startsWith": "o"}]},
        "ok",
        ['expected exactly one of: "ok"; a string starting with "o"; got "ok" (2 operands matched)'],
    ),
    (
        "exactlyOne, none matched",
        {"$exactlyOne": ["ok", "ready"]},
        "busy",
        ['expected exactly one of: "ok"; "ready"; got "busy" (none matched)'],
    ),
    (
        "compositions nest",
        {"$allOf": [{"$anyOf": [{"$contains": "ok"}, {"$contains": "ready"}]}, {"$not": {"$contains": "error"}}]},
        "ready, no error",
        ['expected not a string containing "error", got "ready, no error"'],
    ),
    ("composition inside a literal", {"city": {"$not": {"$oneOf": ["Paris", "Lyon"]}}}, {"city": "Nice"}, []),
]


@pytest.mark.parametrize(("expected", "actual", "wanted"), [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_matcher(expected: Any, actual: Any, wanted: list[str]) -> None:
    assert messages(expected, actual) == wanted


def test_a_failing_operand_keeps_its_path() -> None:
    assert messages({"trip": {"$allOf": [{"$contains": {"origin": "PAR"}}]}}, {"trip": {"origin": "LYS"}}) == [
        'trip: expected an object containing {"origin": "PAR"}, got {"origin": "LYS"}'
    ]


def test_compositions_keep_the_exact_mode() -> None:
    exact = MatchContext(mode="exact")
    assert messages({"$anyOf": [{"a": 1}]}, {"a": 1, "b": 2}, exact) == [
        'expected any of: {"a": 1}; got {"a": 1, "b": 2}'
    ]
    assert messages({"$anyOf": [{"a": 1}]}, {"a": 1, "b": 2}) == []


class LevenshteinTests:
    @pytest.mark.parametrize(
        ("a", "b", "distance"),
        [("", "", 0), ("abc", "", 3), ("kitten", "sitting", 3), ("flaw", "lawn", 2), ("gumbo", "gambol", 2)],
    )
    def test_textbook_distances(self, a: str, b: str, distance: int) -> None:
        assert within(a, b, distance) == distance
        assert within(a, b, distance - 1) is None if distance else True

    def test_a_long_text_against_a_small_limit_is_quick(self) -> None:
        assert within("a" * 20_000, "a" * 19_999 + "b", 2) == 1


class SnapshotTests:
    def test_the_first_value_is_recorded_and_passes(self) -> None:
        snapshots = Snapshots()
        ctx = MatchContext(target="final_answer", snapshots=snapshots)
        assert messages({"$snapshot": True}, "Sunny", ctx) == []
        assert snapshots.seen == {"final_answer": {"key": "final_answer", "value": "Sunny", "status": "created"}}

    def test_later_values_compare_with_the_stored_one(self) -> None:
        snapshots = Snapshots(stored={"forecast": {"t": 21}})
        ctx = MatchContext(target="x", snapshots=snapshots)
        assert messages({"today": {"$snapshot": "forecast"}}, {"today": {"t": 21.0}}, ctx) == []
        snapshots = Snapshots(stored={"forecast": {"t": 21}})
        ctx = MatchContext(target="x", snapshots=snapshots)
        assert messages({"today": {"$snapshot": "forecast"}}, {"today": {"t": 22}}, ctx) == [
            'today: differs from snapshot "forecast": expected {"t": 21}, got {"t": 22} (run `evalhub run '
            "--update-snapshots` or press Update snapshot on the run's page)"
        ]
        assert snapshots.seen["forecast"]["status"] == "mismatched"

    def test_a_key_without_a_name_is_the_target_and_path(self) -> None:
        snapshots = Snapshots()
        ctx = MatchContext(target="tool_called get_weather args", snapshots=snapshots)
        assert messages({"latitude": {"$snapshot": True}}, {"latitude": 48.85}, ctx) == []
        assert list(snapshots.seen) == ["tool_called get_weather args latitude"]

    def test_update_rerecords_and_passes(self) -> None:
        snapshots = Snapshots(stored={"final_answer": "old"}, update=True)
        assert messages({"$snapshot": True}, "new", MatchContext(target="final_answer", snapshots=snapshots)) == []
        assert snapshots.seen["final_answer"]["status"] == "updated"

    def test_ci_refuses_to_create(self) -> None:
        snapshots = Snapshots(may_create=False)
        assert messages({"$snapshot": True}, "v", MatchContext(target="final_answer", snapshots=snapshots)) == [
            'no snapshot "final_answer" is stored, and with CI=true a run does not create one: run `evalhub run '
            "--update-snapshots` or press Update snapshot on the run's page"
        ]
        assert snapshots.seen["final_answer"]["status"] == "refused"

    def test_ci_still_compares_stored_ones(self) -> None:
        snapshots = Snapshots(stored={"final_answer": "v"}, may_create=False)
        assert messages({"$snapshot": True}, "v", MatchContext(target="final_answer", snapshots=snapshots)) == []


VALIDATION: list[tuple[str, Any, list[str]]] = [
    (
        "unknown inside not",
        {"a": {"$not": {"$contans": "x"}}},
        ['args.a.$not: unknown matcher "$contans"; did you mean "$contains"?'],
    ),
    (
        "unknown deep inside compositions",
        {"a": {"$allOf": [{"$anyOf": [{"$regex": "("}]}]}},
        [
            "args.a.$allOf[0].$anyOf[0]: $regex is not a valid regular expression (missing ), unterminated subpattern "
            'at position 0), got "("'
        ],
    ),
    ("empty composition", {"a": {"$anyOf": []}}, ["args.a: $anyOf needs a non-empty array of expected values, got []"]),
    (
        "composition of a non-list",
        {"a": {"$allOf": {"$contains": "x"}}},
        ['args.a: $allOf needs a non-empty array of expected values, got {"$contains": "x"}'],
    ),
    (
        "snapshot in not",
        {"a": {"$not": {"$snapshot": True}}},
        ["args.a.$not: $snapshot cannot be negated or composed (it stores a value); give it its own expectation"],
    ),
    ("snapshot argument", {"a": {"$snapshot": ""}}, ['args.a: $snapshot needs true or a snapshot name, got ""']),
    (
        "containsAll of a string",
        {"a": {"$containsAll": "x"}},
        ['args.a: $containsAll needs an array of substrings or elements, got "x"'],
    ),
    ("startsWith of a number", {"a": {"$startsWith": 1}}, ["args.a: $startsWith needs a string, got 1"]),
    (
        "levenshtein without max",
        {"a": {"$levenshtein": {"value": "x"}}},
        ['args.a: $levenshtein needs {"value": a string, "max": an integer ≥ 0}, got {"value": "x"}'],
    ),
    (
        "levenshtein negative",
        {"a": {"$levenshtein": {"value": "x", "max": -1}}},
        ['args.a: $levenshtein needs {"value": a string, "max": an integer ≥ 0}, got {"value": "x", "max": -1}'],
    ),
    (
        "isJson bad schema",
        {"a": {"$isJson": {"schema": {"type": "nope"}}}},
        [
            "args.a: $isJson schema is not a valid JSON Schema: 'nope' is not valid under any of the given schemas, "
            'got {"schema": {"type": "nope"}}'
        ],
    ),
    (
        "isJson unknown option",
        {"a": {"$isJson": {"shema": {}}}},
        ['args.a: $isJson needs true or {"schema": a JSON Schema}, got {"shema": {}}'],
    ),
    (
        "schema with an external ref",
        {"a": {"$schema": {"$ref": "https://example.com/s.json"}}},
        [
            "args.a: $schema uses the external $ref 'https://example.com/s.json': only same-document references (#/…) "
            'are allowed, got {"$ref": "https://example.com/s.json"}'
        ],
    ),
    (
        "isXml root",
        {"a": {"$isXml": {"root": ""}}},
        ['args.a: $isXml needs true or {"root": an element name}, got {"root": ""}'],
    ),
    ("a literal operand is fine", {"a": {"$anyOf": ["x", {"$oneOf": [{"$nope": 1}]}]}}, []),
]


@pytest.mark.parametrize(("value", "wanted"), [row[1:] for row in VALIDATION], ids=[row[0] for row in VALIDATION])
def test_validation_names_the_place(value: Any, wanted: list[str]) -> None:
    assert check_value(value, "args") == wanted


def test_schema_nesting_is_capped() -> None:
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(70):
        deep = {"properties": {"a": deep}}
    assert check_value({"$schema": deep}, "args")[0].startswith("args: $schema is nested deeper than 64 levels")


def test_describe_compositions() -> None:
    assert describe_value({"q": {"$not": {"$contains": "x"}}, "r": {"$anyOf": ["a", {"$startsWith": "b"}]}}) == [
        'q not containing "x"',
        'r any of: = "a"; starting with "b"',
    ]
