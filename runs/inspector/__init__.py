"""The run page's transcript inspector: a run's record turned into the story its page tells.

Django-free: it reads the recorded JSON (TranscriptData, EvalToolCall records, model calls) and returns plain
dictionaries for the templates, so each rule (which facts go where, what counts as an error, where the time went)
is tested without a database.
"""
