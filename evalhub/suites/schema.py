"""`suite_schema(url)`: the suite file as JSON Schema (2020-12), served at /api/v1/schemas/suite.json so editors
check a file while it is typed (through the `# yaml-language-server: $schema=` line exports write). Django-free.

Built from the section declarations and the expectations engine's own schema, so neither can drift from what
`validation` accepts. `validation` is the authority: a few rules need code (unique names, expectations' own checks).
"""

from __future__ import annotations

import copy
from typing import Any

from evalhub.suites.sections import SECTIONS
from scorers.expectations import EXPECTATIONS_JSON_SCHEMA

FORMAT_VERSION = 1
SCHEMA_PATH = "/api/v1/schemas/suite.json"


def _expectations_defs() -> dict[str, Any]:
    # The expectations schema refers to its own $defs from its root ("#/$defs/value"); hoisted to the suite's root,
    # those references resolve unchanged.
    engine = copy.deepcopy(EXPECTATIONS_JSON_SCHEMA)
    defs = engine.pop("$defs")
    engine.pop("$schema", None)
    return {**defs, "expectations": engine}


def suite_schema(schema_id: str = SCHEMA_PATH) -> dict[str, Any]:
    sections = {
        key: {"type": "array", "description": section.description, "items": section.item_schema()}
        for key, section in SECTIONS.items()
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": "EvalHub suite",
        "description": "Servers, providers, scorers and scenarios of an EvalHub install, applied by name.",
        "type": "object",
        "properties": {
            "version": {"const": FORMAT_VERSION, "description": "The suite format's version."},
            **sections,
        },
        "additionalProperties": False,
        "$defs": _expectations_defs(),
    }
