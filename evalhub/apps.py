from django.apps import AppConfig


class EvalhubConfig(AppConfig):
    name = "evalhub"
    verbose_name = "EvalHub"

    def ready(self) -> None:
        # Bind `shared_task`s to our configured app in every Django process (web, shell, tests), so `.delay()`
        # goes to the configured broker. Workers load it themselves through `celery -A evalhub`.
        from evalhub import celery  # noqa: F401
