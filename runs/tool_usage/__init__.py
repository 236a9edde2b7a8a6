"""Which tool was confused: how runs used a server's tools, from their recorded calls.

- `facts`: pure — a run reduced to what these statistics read (expected tools, calls by real name, arguments,
  errors, the input schemas it was run against).
- `confusion`: pure — expected tool against called tool, with the runs behind each count.
- `arguments`: pure — why a call's arguments were wrong (missing, wrong type, out of range), per argument.
- `stats`: pure — per tool: calls, error rate, argument error rate, scenarios, failure modes; coverage.
- `services`: reads runs from the database into facts, for the experiment, scenario and server pages.

Names are real tool names: under a variant (runs/variants) the recorded `toolName` is the server's, so every
column of an experiment is counted on the same rows.
"""
