"""The boards app: pages, API and JSON of the leaderboards; no models of its own (it reads the runs app's
``LeaderboardEntry`` rows, scores and runs)."""
from django.apps import AppConfig


class BoardsConfig(AppConfig):
    name = "leaderboard.boards"
    label = "boards"
    verbose_name = "Leaderboards"
