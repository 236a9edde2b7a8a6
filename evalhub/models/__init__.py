"""The core domain every app shares. One module per concept; import models from here."""

from evalhub.models.workers import WorkerHeartbeat

__all__ = ["WorkerHeartbeat"]
