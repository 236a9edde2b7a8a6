"""API keys: issuing, revoking and checking them (`auth.py` decides who an API request is and what it may do)."""
