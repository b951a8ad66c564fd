"""App config of leaderboard.modelhost. At start-up (the site and every worker alike) it registers
the evaluators named in the ``LEADERBOARD_EXTRA_EVALUATORS`` setting."""

from django.apps import AppConfig


class ModelhostConfig(AppConfig):
    name = "leaderboard.modelhost"
    label = "modelhost"
    verbose_name = "Model hosting"

    def ready(self) -> None:
        from django.conf import settings

        from evaluators.core.registry import register_all

        register_all(settings.EXTRA_EVALUATORS)
