"""Fault injection: a scenario or an experiment column makes the run's MCP server misbehave on purpose (hang, slow,
error, wedged, drop, recover_after) and checks how the agent copes (the `recovery` expectations).

Pure parts: `spec` (the plan, validated), `schedule` (which call gets which fault), `recovery` (the fault timeline
and the recovery checks). `connection` is the wrapper the run pipeline puts around its MCP connection.

Verdict (README "Fault injection"): an injected fault is EvalHub's doing, never the server's. A call that failed
because of it is neither the server's error nor the agent's (`failed_by="fault"` in runs.verdict), so it fails
neither the default scorer nor blames the server; the recovery expectations are one gating check ("Fault
recovery"), and a run that fails them fails with cause `agent` (it did not cope). A run whose time limit struck
while an injected hang was still running is inconclusive, cause `harness`: the test outlasted itself.
"""
