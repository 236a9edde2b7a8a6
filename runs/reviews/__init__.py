"""Human review of runs: a person's pass/fail on a run, which becomes the run's verdict (README "Reviewing runs").

`models` holds the Review row; `rule` the pure rule that turns a run's reviews into its human verdict; `services`
saves and deletes reviews and re-decides the run's verdict through `runs.run_verdict`; `sampling` builds review
queues (pure); `views`, `api` and `export` are the surfaces.
"""
