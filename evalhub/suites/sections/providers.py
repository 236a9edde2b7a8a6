"""`providers:` OpenAI-compatible model endpoints: names and base URLs; the API key only as a `${VAR}` reference.
The built-in providers (the offline model, OpenAI from OPENAI_API_KEY) exist on every install and are not listed."""

from __future__ import annotations

from evalhub.suites.sections.spec import NAME, Field, Section

SECTION = Section(
    key="providers",
    description="An OpenAI-compatible endpoint that scenarios and judges use, by name.",
    fields={
        "name": Field(NAME, "Unique name."),
        "base_url": Field({"type": "string", "minLength": 1}, "The endpoint's base URL, e.g. https://…/v1."),
        "models": Field({"type": "array", "items": {"type": "string"}}, "The models it serves.", [], "model_names"),
        "api_key": Field(
            {"type": "string", "pattern": r"^(\$\{[A-Za-z_][A-Za-z0-9_]*\})?$"},
            "The API key, as ${VAR}; empty for an endpoint without one.",
            "",
            attr=None,
        ),
        "headers": Field(
            {"type": "object", "additionalProperties": {"type": "string"}},
            "Extra headers. A value written ${VAR} is a secret.",
            {},
            attr=None,
        ),
        "timeout": Field({"type": "number", "exclusiveMinimum": 0}, "Seconds per request.", 60.0),
    },
)
