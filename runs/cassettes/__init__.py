"""Record, replay and fork: one interposer between a run's agent and its model and MCP server.

Every run records a cassette (tape.py: each model and MCP exchange, masked and capped like the run's record). A replay
(`POST /runs/{id}/replay`) answers the agent from its parent's cassette: the model always, the server too (offline)
or the live server checked against it; a fork (`POST /runs/{id}/fork`) replays up to a step and goes on live with one
change (fork.py). A request the cassette does not hold, or a live answer that differs, is a cassette miss
(matching.py): the run stops with an error naming the field, the agent's (`cassette_miss`) or the server's
(`server_changed`), which the verdict rule fails like any other agent or server error.

Pure parts: tape, matching, fork. model_side, server_side and interposer are Django-free; store and services are
the database side; the pipeline composes the interposer in one place (runs/pipeline.py).
"""
