"""The live event stream: what runs, experiments and the quota do, as rows a client can follow (GET /api/v1/events).

`publish` writes them (the web process when runs are queued and the quota changes, the worker as runs start,
step and finish); `tail` reads the table once per process for every follower; `stream` follows them for the
API, the CLI and the pages; `sse` is the wire format.
"""
