"""App config of leaderboard.modelhost."""
from django.apps import AppConfig


class ModelhostConfig(AppConfig):
    name = "leaderboard.modelhost"
    label = "modelhost"
    verbose_name = "Model hosting"
