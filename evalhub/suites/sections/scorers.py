"""`scorers:` code scorers (JavaScript) and LLM judges, at their current version. Applying a change makes a new
version, as saving in the UI does."""

from __future__ import annotations

from evalhub.suites.sections.spec import NAME, Field, Section

SECTION = Section(
    key="scorers",
    description="A scorer, by name. Scenarios attach it by that name.",
    fields={
        "name": Field(NAME, "Unique name."),
        "description": Field({"type": "string"}, "What it checks.", ""),
        "kind": Field({"enum": ["code", "judge"]}, "code (JavaScript) or judge (an LLM picks a label).", "code"),
        "code": Field({"type": "string"}, "code: async ({ input, expected, output }) => number in 0..1.", ""),
        "system_prompt": Field({"type": "string"}, "judge: what the judge is told.", ""),
        "labels": Field({"type": "string"}, "judge: one LABEL|score per line, e.g. GOOD|1.", ""),
        "judge_provider": Field(
            {"type": "string"}, "judge: the provider's name; empty for the default judge model.", "", attr=None
        ),
        "judge_model": Field({"type": "string"}, "judge: the model; empty for the default judge model.", ""),
    },
    extra_schema={
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": "judge"}}, "required": ["kind"]},
                "then": {"required": ["labels"]},
            },
            {
                "if": {"properties": {"kind": {"const": "code"}}},
                "then": {"required": ["code"], "properties": {"code": {"minLength": 1}}},
            },
        ]
    },
)
