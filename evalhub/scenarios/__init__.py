"""Scenarios: a prompt for an agent that can call one server's tools, its budgets and expectations; pages and API."""
