"""mcptest v1 suites converted to EvalHub suites, with a report of everything that did not carry over. Django-free.

`mapping` is the one table of what maps where (printed by `evalhub import-mcptest --mapping` and in docs),
`expect` maps agent `expect` targets and matchers onto expectations, `convert` does the rest.
"""

from __future__ import annotations

from evalhub.suites.mcptest.convert import Conversion, Note, convert
from evalhub.suites.mcptest.mapping import MAPPING, mapping_table

__all__ = ["MAPPING", "Conversion", "Note", "convert", "mapping_table"]
