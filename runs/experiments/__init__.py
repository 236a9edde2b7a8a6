"""Experiments: a plan of scenarios x models x trials, each trial executed as an ordinary run that passes or fails.

This package holds the pure parts — statistics over trials (`stats`) and the alignment of two runs' transcripts
to find where they first part ways (`divergence`) — which import neither Django nor the database, so they can be
read and tested on their own; the Django parts (models, services, views) will live beside them and call them.
"""
