"""Conversations: a run with more than one user message, scripted or played by a simulated user.

A scenario's `conversation` (validated by `spec`) is empty for a one-prompt run, or one of
  {"turns": ["follow-up 1", "follow-up 2", ...]}            scripted follow-ups, sent in order
  {"simulate": {"goal": ..., "persona": ..., "model": ..., "provider_id": ..., "max_user_turns": 3,
                "goal_tool": "book_flight"}}                 a simulated user (see `simulator`)
A follow-up is sent when the agent has finished its previous turn (answered without a tool call). The run's
budgets (max_turns, max_tool_calls, tokens, cost, time) apply to the whole conversation. `spec` and `simulator`
are Django-free; `driver` feeds the agent loop (runs/agent.py) its next user message and records the turns.
"""
