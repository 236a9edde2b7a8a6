"""`manage.py evalhub run`, the command CI jobs call: see runner.py for what it does and its exit codes."""
