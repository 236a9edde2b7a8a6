from django.apps import AppConfig


class ScorersConfig(AppConfig):
    name = "scorers"
