"""EvalHub: evaluate how well LLM agents use MCP servers.

The Celery app is loaded in EvalhubConfig.ready(), not here, so that `python -m evalhub.demo_server` and other
light entry points start without importing Celery and Django settings.
"""

# Kept equal to pyproject.toml's version (a test checks): /health and /api/v1/config report it.
__version__ = "0.1.0"
