"""The boards app: pages, API and JSON of the leaderboards; no models of its own (it reads the runs app's
``LeaderboardEntry`` rows, scores and runs)."""

from django.apps import AppConfig


class BoardsConfig(AppConfig):
    name = "leaderboard.boards"
    label = "boards"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        from leaderboard.arena.published import register
        from leaderboard.boards.agreement import published_agreement

        register(published_agreement)  # the periodic pass keeps the agreement with people with the arena's figures
