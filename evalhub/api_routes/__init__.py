"""The core app's API routers (servers, scenarios, quota/health/metrics/providers) and what every router shares."""
