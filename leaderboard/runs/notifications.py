"""Telling people their work is done: when a run reaches its end (succeeded or failed), its owner gets a
notification on their page and an email (Django's email backend: the console unless configured). A
notification is written once per run outcome (a redelivered task or a retried write cannot send it
twice) and the email goes after the transaction commits; a mail server that fails is logged, never the
run's failure. Reference rows (baselines) notify nobody."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse

from leaderboard.http import site_address
from leaderboard.runs.models import EvaluationRun, Notification, RunStatus, Score

log = logging.getLogger(__name__)


def notify_run_finished(*, run_id: int) -> Notification | None:
    """The owner's notification for the run's end (call inside the transaction that ends it)."""
    run = EvaluationRun.objects.select_related("submission__owner", "submission__model", "benchmark").get(pk=run_id)
    owner = run.submission.owner
    if owner is None or run.submission.model.is_reference or run.status not in (RunStatus.SUCCEEDED, RunStatus.FAILED):
        return None
    url = reverse("submission", args=[run.submission_id]) + f"#run-{run.pk}"
    what = f"{run.submission.model.name} on {run.benchmark.name}"
    if run.status == RunStatus.SUCCEEDED:
        title = f"Run #{run.pk} finished: {what}"
        body = _headline(run) + "\nIt is on the leaderboard now."
    else:
        title = f"Run #{run.pk} failed: {what}"
        body = (
            f"{run.get_failure_kind_display()}: "
            f"{(run.failure_message or '').splitlines()[0][:300] if run.failure_message else ''}\n"
            "The run's page says what happened and whether a re-run can help."
        )
    try:
        with transaction.atomic():
            notification = Notification.objects.create(user=owner, run=run, title=title, body=body, url=url)
    except IntegrityError:  # this outcome was notified already
        return None
    if owner.email:
        transaction.on_commit(lambda: _email(owner.email, title, body, url))
    return notification


def _headline(run: EvaluationRun) -> str:
    primary = next((c for c in run.benchmark.metric_columns if c.get("primary")), None)
    if primary is None:
        return "Scored."
    score = Score.objects.filter(run=run, key=primary["key"], slice_key="").first()
    if score is None:
        return "Scored."
    shown = (lambda v: f"{100 * v:.1f}%") if primary.get("format", "percent") == "percent" else (lambda v: f"{v:.2f}")
    interval = (
        f" (95% interval {shown(score.ci_low)} to {shown(score.ci_high)})"
        if score.ci_low is not None and score.ci_high is not None
        else ""
    )
    return f"{primary['label']}: {shown(score.value)}{interval}, over {score.n} items."


def _email(address: str, title: str, body: str, url: str) -> None:
    try:
        send_mail(title, f"{body}\n\n{site_address(url)}\n", settings.DEFAULT_FROM_EMAIL, [address])
    except Exception:  # a mail server's trouble is logged, never the run's
        log.exception("could not email %s about %r", address, title)


def notifications_for(*, user: Any, limit: int = 50) -> list[Notification]:
    return list(Notification.objects.filter(user=user)[:limit])


def notifications_mark_read(*, user: Any) -> int:
    from django.utils import timezone

    return Notification.objects.filter(user=user, read_at__isnull=True).update(read_at=timezone.now())


def unread_count(*, user: Any) -> int:
    return Notification.objects.filter(user=user, read_at__isnull=True).count()
