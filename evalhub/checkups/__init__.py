"""Check-ups: one call that looks at a whole MCP server and answers a scored report (issue 32).

`probe.py` talks to the server (Django-free, every request bounded); `static.py`, `compliance.py` and `sweep.py`
turn what it saw into findings and `findings.py` scores them and decides the verdict (all pure); `shipped.py` runs
the server's own evals; `services.py` ties them together for the page (`views.py`), the API (`api.py`), the task
(`tasks.py`) and the CLI (`cli.py`); `report.py` renders JSON, Markdown, JUnit and HTML.
"""
