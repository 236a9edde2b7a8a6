from django.apps import AppConfig
from django.conf import settings


class EvalhubConfig(AppConfig):
    name = "evalhub"
    verbose_name = "EvalHub"

    def ready(self) -> None:
        # Bind `shared_task`s to our configured app in every Django process (web, shell, tests), so `.delay()`
        # goes to the configured broker. Workers load it themselves through `celery -A evalhub`.
        from evalhub import celery  # noqa: F401
        from evalhub.mcp_client import leftovers

        # Every process records the stdio servers it spawns, so a worker can kill those a killed process left.
        leftovers.track_in(settings.VAR_DIR / "stdio-servers")
