"""The pure parts of a check-up: scores, verdict, comparison, made-up arguments, and the compliance and sweep
rules on observations written by hand."""

from __future__ import annotations

from evalhub.checkups import arguments
from evalhub.checkups.compliance import compliance_findings
from evalhub.checkups.findings import Finding, compare, section_score, summarise
from evalhub.checkups.sweep import call_facts, runtime_findings
from evalhub.mcp_client.raw import RawAnswer


def finding(severity: str, code: str = "c", subject: str = "t", section: str = "runtime") -> Finding:
    return Finding(section, severity, code, "m", "r", subject)  # type: ignore[arg-type]


class ScoreTests:
    def test_it_takes_a_fifth_per_error_and_a_twentieth_per_warning(self) -> None:
        assert section_score([finding("error"), finding("warning"), finding("info")]) == 0.75
        assert section_score([finding("error")] * 6) == 0.0

    def test_any_error_fails_whatever_the_score(self) -> None:
        summary = summarise([finding("error", section="static")], ran=["static", "compliance", "runtime"])
        assert summary.passed is False
        assert summary.score == round((0.8 + 1 + 1) / 3, 4)
        assert summarise([finding("warning")] * 10, ran=["runtime"]).passed is True

    def test_only_sections_that_ran_are_scored(self) -> None:
        assert set(summarise([], ran=["compliance"]).sections) == {"compliance"}


class CompareTests:
    def test_it_sorts_fixed_new_better_and_worse(self) -> None:
        before = [finding("error", "a"), finding("warning", "b"), finding("info", "c"), finding("info", "same")]
        after = [finding("warning", "a"), finding("error", "c"), finding("error", "d"), finding("info", "same")]
        result = compare(before, after)
        assert [f.code for f in result.fixed] == ["b"]
        assert [f.code for f in result.new] == ["d"]
        assert [(a.severity, b.severity) for a, b in result.better] == [("error", "warning")]
        assert [(a.severity, b.severity) for a, b in result.worse] == [("info", "error")]
        assert result.unchanged == 1


class ArgumentTests:
    SCHEMA = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "enum": ["Paris", "Oslo"]},
            "day": {"type": "string", "format": "date"},
            "count": {"type": "integer", "minimum": 2},
            "note": {"type": "string"},
        },
        "required": ["city", "day", "count"],
    }

    def test_valid_arguments_meet_the_schema(self) -> None:
        valid = arguments.valid_arguments(self.SCHEMA)
        assert valid == {"city": "Paris", "day": "2025-01-15", "count": 2}
        assert arguments.is_valid(self.SCHEMA, valid)

    def test_invalid_variants_break_it(self) -> None:
        valid = arguments.valid_arguments(self.SCHEMA)
        variants = arguments.invalid_variants(self.SCHEMA, valid)
        assert variants["missing_required"] == {"day": "2025-01-15", "count": 2}
        assert variants["wrong_type"]["city"] == {"unexpected": ["object"]}
        assert not any(arguments.is_valid(self.SCHEMA, v) for v in variants.values())

    def test_a_pattern_it_cannot_meet_is_said(self) -> None:
        schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[0-9]+$"}}, "required": ["id"]}
        assert not arguments.is_valid(schema, arguments.valid_arguments(schema))

    def test_templates_are_filled(self) -> None:
        assert arguments.template_variables("file:///{dir}/{name}{?q,n}") == ["dir", "name", "q", "n"]
        assert arguments.expand_template("test://static/resource/{id}") == "test://static/resource/1"
        assert arguments.expand_template("x://{a}{?q}") == "x://1?q=1"


def observations(**changes: object) -> dict[str, object]:
    base = {
        "server": {"protocol_version": "2025-06-18", "capabilities": {"tools": {}}},
        "lists": {"tools": {"items": [], "pages": 1, "cursor_problem": "", "failure": None, "duplicates": []}},
        "probes": {
            "ping": {"outcome": "result", "code": None, "message": ""},
            "unknown_method": {"outcome": "error", "code": -32601, "message": "Method not found"},
            "bad_params": {"outcome": "error", "code": -32602, "message": "Invalid params"},
            "unknown_tool": {"outcome": "result", "code": None, "message": "", "result": {"isError": True}},
        },
        "notifications": [],
    }
    base.update(changes)
    return base


class ComplianceTests:
    def test_a_compliant_server_has_no_finding(self) -> None:
        assert compliance_findings(observations()) == []

    def test_an_unknown_version_a_silent_ping_and_an_accepted_unknown_tool(self) -> None:
        found = compliance_findings(
            observations(
                server={"protocol_version": "1999-01-01", "capabilities": {"tools": {}}},
                probes={
                    "ping": {"outcome": "timeout", "code": None, "message": "No answer within 3 s."},
                    "unknown_tool": {"outcome": "result", "code": None, "message": "", "result": {"content": []}},
                },
            )
        )
        assert sorted(f.code for f in found) == ["ping_failed", "unknown_protocol_version", "unknown_tool_wrong_answer"]

    def test_an_undeclared_list_with_items_and_duplicates(self) -> None:
        lists = {
            "tools": {"items": [{}], "pages": 2, "cursor_problem": "", "failure": None, "duplicates": ["a"]},
            "prompts": {"items": [{"name": "p"}], "pages": 1, "cursor_problem": "", "failure": None, "duplicates": []},
        }
        found = compliance_findings(observations(lists=lists))
        assert sorted((f.code, f.subject) for f in found) == [
            ("pagination_duplicates", "tools/list"),
            ("undeclared_capability", "prompts/list"),
        ]


class SweepTests:
    def call(self, kind: str, outcome: str, **facts: object) -> dict[str, object]:
        return {"tool": "t", "kind": kind, "arguments": {}, "arguments_valid": kind == "valid", "outcome": outcome,
                "code": None, "message": "", "duration_ms": 5, **facts}  # fmt: skip

    def test_clean_failures_are_not_findings(self) -> None:
        calls = [
            self.call("valid", "result", is_error=False, schema_validation={"valid": True, "message": ""}),
            self.call("missing_required", "error", code=-32602),
            self.call("wrong_type", "result", is_error=True),
        ]
        assert runtime_findings({"calls": calls}, call_seconds=3) == []

    def test_a_tool_error_on_valid_arguments_quotes_what_the_tool_said(self) -> None:
        result = {"content": [{"type": "text", "text": "the weather service is down"}], "isError": True}
        answer = RawAnswer(outcome="result", result=result, duration_ms=5)
        facts = call_facts({"name": "get_weather"}, "valid", {"latitude": 1}, True, answer)

        (found,) = runtime_findings({"calls": [facts]}, call_seconds=3)

        assert (found.code, found.message) == (
            "valid_call_tool_error",
            "Arguments that fit the inputSchema got a tool error: the weather service is down",
        )

    def test_a_schema_mismatch_is_an_error(self) -> None:
        calls = [self.call("valid", "result", is_error=False, schema_validation={"valid": False, "message": "x"})]
        assert [(f.severity, f.code) for f in runtime_findings({"calls": calls}, call_seconds=3)] == [
            ("error", "output_schema_mismatch")
        ]

    def test_a_template_refusing_made_up_parameters_is_info_a_resource_failing_an_error(self) -> None:
        reads = [
            {"uri": "x://1", "template": "x://{id}", "outcome": "error", "message": "no", "contents": 0},
            {"uri": "x://a", "template": "", "outcome": "timeout", "message": "", "contents": 0},
        ]
        found = runtime_findings({"reads": reads}, call_seconds=3)
        assert [(f.severity, f.code) for f in found] == [
            ("info", "template_read_failed"),
            ("error", "resource_read_failed"),
        ]
