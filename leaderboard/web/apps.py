"""The site's pages. Connects the page cache to the models whose changes a leaderboard page shows."""

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "leaderboard.web"
    label = "web"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from leaderboard.arena.models import ArenaModel
        from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
        from leaderboard.history.models import ChangelogEntry, Snapshot
        from leaderboard.pagecache import boards_changed
        from leaderboard.runs.models import EvaluationRun, LeaderboardEntry, Submission

        # ArenaModel: its link to a catalog model decides whose profile and index row show its figures
        for shown in (
            LeaderboardEntry,
            EvaluationRun,
            Submission,
            Model,
            DatasetVersion,
            Benchmark,
            Snapshot,
            ChangelogEntry,
            ArenaModel,
        ):
            post_save.connect(boards_changed, sender=shown, dispatch_uid=f"pagecache-save-{shown.__name__}")
            post_delete.connect(boards_changed, sender=shown, dispatch_uid=f"pagecache-delete-{shown.__name__}")
