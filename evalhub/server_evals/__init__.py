"""Evals that MCP servers ship (the evals/list proposal): importing them as scenarios and keeping them in sync."""
