"""EvalHub: evaluate how well LLM agents use MCP servers.

The Celery app is loaded in EvalhubConfig.ready(), not here, so that `python -m evalhub.demo_server` and other
light entry points start without importing Celery and Django settings.
"""
