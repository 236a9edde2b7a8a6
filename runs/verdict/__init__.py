"""The verdict of a run: pass, fail or inconclusive, whose failure it was, and where in the run it happened.

Pure (no Django): `decide` takes a run's facts (how it ended, its checks, its tool calls) and returns a `Decision`;
`stage_chain` lays the decision out as the stages a run goes through. `runs.run_verdict` gathers the facts of a
stored run and writes the decision on it; pages, the API, reports and events read the stored fields.

The rule (README "How a run is judged"):
1. A run that ended for a reason outside the agent and the server under test is inconclusive: the model provider
   failed, the simulated user's provider failed, the worker was lost, EvalHub hit an internal error.
2. A server that crashed, timed out, broke the protocol or refused to connect fails the run (cause `server`).
3. A run stopped by a budget (turns, tool calls, time, tokens, cost) fails (cause `budget`; a time limit reached
   while a tool was running is the server's, while a fault EvalHub injected held the call it is inconclusive,
   cause `harness`).
4. Otherwise it passes only when every gating check passes and the score reaches the threshold. A failed gate fails
   the run; a gating judge or code scorer that was skipped or errored, when nothing failed, makes it inconclusive.
5. A failure is the server's when a tool call returned an error the agent did not cause (a bad argument, an unknown
   tool or arguments that are not JSON are the agent's; a call an injected fault failed is nobody's); otherwise
   it is the agent's.
"""

from runs.verdict.rule import CAUSES, Check, Decision, RunFacts, ToolCallFact, decide
from runs.verdict.stages import STAGES, first_failed_stage, stage_chain

__all__ = [
    "CAUSES",
    "STAGES",
    "Check",
    "Decision",
    "RunFacts",
    "ToolCallFact",
    "decide",
    "first_failed_stage",
    "stage_chain",
]
