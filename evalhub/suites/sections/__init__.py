"""One module per top-level section of a suite file: its fields (YAML key, JSON Schema, default). Django-free.

To add a field to a section: add one `Field` to its module (and, when it maps to a model attribute of the same
name, nothing else: `store` reads and writes it generically). `SECTIONS` lists them in the file's order, which is
also the order applying creates them in (scenarios refer to servers, providers and scorers by name).
"""

from __future__ import annotations

from evalhub.suites.sections import providers, scenarios, scorers, servers
from evalhub.suites.sections.spec import Field, Section

SECTIONS: dict[str, Section] = {
    section.key: section for section in (servers.SECTION, providers.SECTION, scorers.SECTION, scenarios.SECTION)
}

__all__ = ["SECTIONS", "Field", "Section"]
