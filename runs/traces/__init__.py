"""Traces out: a run as an OpenTelemetry trace with the GenAI semantic conventions — one `invoke_agent` span for
the run, a `chat` span per model call (tokens, cost, latency, finish reason) and an `execute_tool` span per tool
call (duration, error, an injected fault), code mode's nested calls under their `run_code`.

`spans` builds the SDK's spans from a run's records; `export` encodes them as OTLP/JSON (the run page's download and
`GET /api/v1/runs/{id}/trace`) with the SDK's own encoder, and pushes them to EVALHUB_OTLP_ENDPOINT with the SDK's
OTLP/HTTP exporter after the worker finishes a run. Only names, numbers and outcomes leave EvalHub: no prompt,
argument or result text. A trace changes no verdict, and a failed push never fails a run.
"""
