"""mcptest v1 suites converted to EvalHub suites, with a report of everything that did not carry over. Django-free.

`load` reads the file as mcptest does (YAML 1.2), `schema` refuses what mcptest's schema refuses, `context`
interpolates as mcptest does, `convert` (with `tools` and `turns`) writes the EvalHub suite, `expect` maps `expect`
targets and matchers onto expectations, and `report` counts every item as exact, approximated or refused.
`mapping` is the one table of what maps where (printed by `evalhub import-mcptest --mapping` and in docs).
"""

from __future__ import annotations

from evalhub.suites.mcptest.convert import Conversion, Note, convert
from evalhub.suites.mcptest.mapping import MAPPING, mapping_table

__all__ = ["MAPPING", "Conversion", "Note", "convert", "mapping_table"]
