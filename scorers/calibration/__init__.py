"""Calibration: how often each scorer version (and judge model) agrees with people's reviews of the runs it scored.

`stats` is pure (agreement, Cohen's κ, rates); `version` is the pure fingerprint of what defines a scorer's
behaviour; the services compare the stored results with people's reviews and give each scorer a status.
"""
