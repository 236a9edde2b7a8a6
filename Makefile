# The two commands of README.md: `make run` and `make test`. Everything they need, they install.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
RUNTIME_STAMP := $(VENV)/.runtime-installed
DEV_STAMP := $(VENV)/.dev-installed
ADDR ?= 127.0.0.1:8000

.PHONY: run test lint typecheck pytest chromium clean

## make run: install, check the address is free, migrate, seed the demo, start the web app and a worker (Ctrl-C
## stops both).
run: $(RUNTIME_STAMP)
	@export DEBUG=$${DEBUG:-1}; \
	exec $(PY) manage.py serve --addr $(ADDR) --prepare

## make test: install the test tools too, then lint, type-check and run the whole suite.
test: $(DEV_STAMP) chromium lint typecheck pytest

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(DEV_STAMP)
	DEBUG=1 $(VENV)/bin/mypy

# EVALHUB_TEST_DATABASE_URL picks the test database server (SQLite when unset); CELERY_BROKER_URL the broker.
# Most tests wait on real processes (workers, MCP servers, Chromium), so TEST_PROCESSES pytest processes share
# the cores well; each gets its own test database and task queue. The 30 slowest tests are listed at the end: the
# suite's cost is watched (issue 30).
TEST_PROCESSES ?= 3
pytest: $(DEV_STAMP) chromium
	DATABASE_URL="$(EVALHUB_TEST_DATABASE_URL)" $(VENV)/bin/pytest -n $(TEST_PROCESSES) --durations=30

$(PY):
	@test -n "$(PYTHON)" || { echo "Python 3.11 is needed: install python3.11 and run make again." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(RUNTIME_STAMP): requirements.txt | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(DEV_STAMP): requirements.txt requirements-dev.txt $(RUNTIME_STAMP)
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@

# Browser tests drive Debian's Chromium; Playwright's own browser download is not used.
chromium:
	@command -v chromium >/dev/null || { \
		echo "Installing Debian's chromium package for the browser tests…"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

clean:
	rm -rf $(VENV) var
