"""Snapshots: the values `$snapshot` expectations compare with, one per scenario and key, recorded by the first run
that reaches them (or re-recorded on request: `evalhub run --update-snapshots`, the run page's Update snapshot)."""
