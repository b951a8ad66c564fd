"""The daily quota of evaluation runs: one unit taken in the transaction that creates a run, given back
once when the platform (not the submitter) made the run fail."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from leaderboard.accounts import policy
from leaderboard.runs.models import EvaluationRun, QuotaUsage
from leaderboard.runs.services.common import SubmissionRefused


class QuotaExceeded(SubmissionRefused):
    pass


def quota_take(*, user: User, today: dt.date | None = None) -> None:
    """Use one of the user's daily runs, atomically (a conditional UPDATE, no count-then-insert race).
    Call inside the transaction that creates the run, so a rollback gives it back."""
    today = today or timezone.now().date()
    limit = settings.SUBMISSIONS_PER_DAY
    if policy.is_staff(user):
        return
    try:
        with transaction.atomic():
            QuotaUsage.objects.get_or_create(user=user, day=today)
    except IntegrityError:
        pass  # created by a concurrent request
    taken = QuotaUsage.objects.filter(user=user, day=today, used__lt=limit).update(used=F("used") + 1)
    if not taken:
        raise QuotaExceeded(
            f"You have used all {limit} evaluation runs for today (UTC). The quota resets at midnight UTC; "
            "runs that fail because of the platform are given back automatically."
        )


def quota_refund(*, run: EvaluationRun) -> None:
    """Give back the run's quota unit once (the platform failed, not the submitter)."""
    if EvaluationRun.objects.filter(pk=run.pk, quota_charged=True).update(quota_charged=False):
        QuotaUsage.objects.filter(user_id=run.submission.owner_id, day=run.created_at.date(), used__gt=0).update(
            used=F("used") - 1
        )


def quota_remaining(*, user: User) -> int:
    usage = QuotaUsage.objects.filter(user=user, day=timezone.now().date()).values_list("used", flat=True).first() or 0
    return max(0, settings.SUBMISSIONS_PER_DAY - usage)
