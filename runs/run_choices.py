"""What a caller chose for a run beyond its scenario, carried as one value from the page, API, CLI or experiment
that starts it to the Run row. Each choice left empty keeps the scenario's own (or the site's setting)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalhub.providers.models import Provider


@dataclass(frozen=True)
class RunChoices:
    # What runs it: another of the provider's models, another provider (an experiment column), another tool mode.
    model: str = ""
    provider: Provider | None = None
    tool_mode: str = ""
    # "all" or "calibrated": which gating judges decide its verdict (runs.scoring.gate_judges).
    judges: str = ""
    # "update" or "ci": how its `$snapshot` checks treat missing and different values (runs.snapshots.services).
    snapshots: str = ""
    # `evalhub run`'s server flags (runs/server_override.py), applied by the worker when the run connects.
    server_override: dict[str, Any] | None = None
    # The tool surface the model is offered instead of the server's own (runs/variants).
    variant: dict[str, Any] | None = None
    # An experiment column's fault profile (runs.fault_injection), replacing the scenario's own.
    fault_injection: dict[str, Any] | None = None

    def settings(self) -> dict[str, Any]:
        """The entries these choices add to the run's settings: only what was chosen."""
        chosen = {
            "judges": self.judges,
            "snapshots": self.snapshots,
            "server_override": self.server_override,
            "variant": self.variant,
        }
        return {name: value for name, value in chosen.items() if value}


# The run as its scenario is written: nothing chosen.
AS_WRITTEN = RunChoices()
