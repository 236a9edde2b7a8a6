"""The live event stream: what runs, experiments and the quota do, as rows a client can follow (GET /api/v1/events).

`publish` writes them (the web process when runs are queued and the quota changes, the worker as runs start,
step and finish); `stream` follows them for the API, the CLI and the run page; `sse` is the wire format.
"""
