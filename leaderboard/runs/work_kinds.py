"""The site's own work, told apart from people's: the evaluators' baselines (owned by the inactive
account "baselines") and the embedded demo model's runs (owned by "demo"). Their runs wait on the
``baseline`` queue, served by its own worker, so a person's run never queues behind them; the queue's
pages and a waiting run's estimate call them "baseline" and everything else "user"."""

from __future__ import annotations

from leaderboard import task_sends
from leaderboard.accounts.site_accounts import BASELINE_OWNER, DEMO_OWNER, SITE_OWNERS
from leaderboard.runs.models import Submission

__all__ = [
    "BASELINE",
    "BASELINE_OWNER",
    "DEMO_OWNER",
    "SITE_OWNERS",
    "USER",
    "is_site_work",
    "scoring_queue_for",
    "work_kind",
]

#: the two kinds of work a waiting run is told about
BASELINE, USER = "baseline", "user"


def is_site_work(submission: Submission) -> bool:
    """Whether the site submitted this itself (a baseline or the demo model), not a person."""
    return submission.owner.username in SITE_OWNERS or submission.model.is_reference


def work_kind(submission: Submission) -> str:
    """ "baseline" for the site's own work, "user" for a person's."""
    return BASELINE if is_site_work(submission) else USER


def scoring_queue_for(submission: Submission) -> str:
    """The queue a run of this submission is scored on: ``baseline`` for the site's own, else ``cpu``."""
    return task_sends.BASELINE if is_site_work(submission) else task_sends.CPU
