"""App config for the Search Arena."""

from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "leaderboard.arena"
    label = "arena"
    verbose_name = "Search Arena"
