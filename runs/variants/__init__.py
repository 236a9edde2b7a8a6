"""Variants of a server's tool surface: what the model is offered (names, descriptions, input schemas, which
tools), changed without touching the server, as a third axis of an experiment beside models and tool modes.

- `surface`: pure — parse a variant (errors name the place), apply it to a tool list, map a called name back.
- `suggest`: the generation model proposes a rewritten description from a cell's failed trials.

The agent loop (runs/agent.py) offers `Surface.tools` and calls `Surface.real_tool(name)`'s real name, so the
server receives its own names and validates its own schemas; the transcript keeps both names.
"""
