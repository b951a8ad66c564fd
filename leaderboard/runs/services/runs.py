"""The run life cycle: a run created (its quota unit taken, its chunks cut, sent to its queue or to its
submission's generation job), claimed by a worker under a lease, kept alive by heartbeats, completed
with its scores or failed with a classified reason, cancelled or re-run by its submitter, and sent
again or re-queued when its message or its worker was lost.

Every state change is a compare-and-set ``UPDATE ... WHERE`` so that a redelivered Celery message,
a late worker or a double click does nothing instead of doing it twice.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from evaluators.core import MetricValue
from leaderboard import pagecache, task_sends
from leaderboard.accounts import policy
from leaderboard.catalog.evaluators import evaluator_settings_for
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.runs import leases
from leaderboard.runs.costs import run_cost
from leaderboard.runs.leases import Claim
from leaderboard.runs.models import (
    PLATFORM_FAILURES,
    EvaluationRun,
    FailureKind,
    GenerationJob,
    ItemResult,
    RunChunk,
    RunPhase,
    RunStatus,
    Score,
    Submission,
)
from leaderboard.runs.notifications import notify_run_finished
from leaderboard.runs.score_keys import slice_key
from leaderboard.runs.services.common import SubmissionRefused, current_dataset
from leaderboard.runs.services.quota import quota_refund, quota_take
from leaderboard.runs.work_kinds import is_site_work, scoring_queue_for


def run_create(
    *,
    submission: Submission,
    benchmark: Benchmark,
    dataset_version: DatasetVersion,
    rerun_of: EvaluationRun | None = None,
) -> EvaluationRun:
    """Create a queued run (charging the quota) and send it to its queue once the transaction commits:
    ``baseline`` for the site's own submissions (``work_kinds``), ``cpu`` for people's.
    A run of a model that must answer first starts in phase "generating": its submission's
    GenerationJob (created or re-queued here) hands it to scoring once its predictions exist."""
    generating = submission.model.needs_generation
    with transaction.atomic():
        quota_take(user=submission.owner)
        run = EvaluationRun.objects.create(
            submission=submission,
            benchmark=benchmark,
            dataset_version=dataset_version,
            queue=scoring_queue_for(submission),
            evaluator_key=benchmark.evaluator_key,
            evaluator_settings=evaluator_settings_for(benchmark),
            items_total=dataset_version.item_count,
            max_attempts=settings.RUN_MAX_ATTEMPTS,
            rerun_of=rerun_of,
            phase=RunPhase.GENERATING if generating else RunPhase.NONE,
        )
        pagecache.boards_changed()  # the run, and the submission it is the first run of
        size = max(1, settings.RUN_CHUNK_ITEMS)
        ids = dataset_version.item_ids
        RunChunk.objects.bulk_create(
            [RunChunk(run=run, index=i // size, item_ids=ids[i : i + size]) for i in range(0, len(ids), size)]
        )
        if generating:
            generation_job_queue(submission=submission)
        else:
            task_sends.evaluate_run(run.pk, queue=run.queue)
    return run


# --- runs of registered models: their generation job ----------------------------------------------


def generation_queue_for(model: Model) -> str:
    """Self-hosted weights need a GPU worker; endpoints only need the network (cpu)."""
    return task_sends.CPU if model.source == Model.SOURCE_ENDPOINT else task_sends.gpu_queue(settings.GPU_KIND)


def generation_job_queue(*, submission: Submission) -> GenerationJob:
    """The submission's generation job, created queued, or re-queued when it had finished (a re-run
    needs a model load again); sent to its queue on commit. Harmless when already queued/running."""
    job, created = GenerationJob.objects.get_or_create(
        submission=submission,
        defaults={"queue": generation_queue_for(submission.model), "max_attempts": settings.RUN_MAX_ATTEMPTS},
    )
    if not created:
        requeued = GenerationJob.objects.filter(
            pk=job.pk, status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED]
        ).update(
            status=RunStatus.QUEUED,
            attempt=0,
            failure_kind="",
            failure_message="",
            finished_at=None,
            queued_at=timezone.now(),
            requests_done=0,
            requests_total=0,
        )
        if not requeued:
            return job  # queued or running: it picks up the new run when it starts, or the reaper re-queues it
    task_sends.generate_submission(job.pk, queue=job.queue, site_work=is_site_work(submission))
    return job


# --- a worker's run ---------------------------------------------------------------------------------


def run_claim(*, run_id: int, worker: str) -> Claim | None:
    """Take a queued run for this worker. Returns None when another worker has it or it is finished
    (so a redelivered message does nothing); a run still waiting for its generation job is not ready."""
    return leases.claim(
        EvaluationRun,
        pk=run_id,
        worker=worker,
        exclude=Q(phase=RunPhase.GENERATING),
        progress_started_at=timezone.now(),
        progress_started_done=F("items_done"),
    )


def run_heartbeat(*, claim: Claim) -> bool:
    """Extend the lease. False means the run was cancelled or taken over: the worker must stop."""
    return leases.heartbeat(EvaluationRun, claim)


def run_set_provenance(*, claim: Claim, evaluator_version: str, environment: dict[str, Any]) -> bool:
    return bool(leases.held(EvaluationRun, claim).update(evaluator_version=evaluator_version, environment=environment))


def run_complete(*, claim: Claim, metrics: Iterable[MetricValue]) -> bool:
    """Store the run's scores and mark it succeeded, atomically and only once (its board row is filed by
    ``leaderboard.chains.board_rows.run_complete_and_file``, which calls this)."""
    with transaction.atomic():
        locked = leases.held(EvaluationRun, claim).select_for_update().first()
        if locked is None:
            return False
        Score.objects.filter(run_id=claim.work_id).delete()
        Score.objects.bulk_create(
            [
                Score(
                    run_id=claim.work_id,
                    key=m.key,
                    slice_key=slice_key(m.slice),
                    value=m.value,
                    ci_low=m.ci_low,
                    ci_high=m.ci_high,
                    n=m.n,
                )
                for m in metrics
            ]
        )
        finished = timezone.now()
        EvaluationRun.objects.filter(pk=claim.work_id).update(
            status=RunStatus.SUCCEEDED,
            finished_at=finished,
            lease_token=None,
            lease_expires_at=None,
            items_done=ItemResult.objects.filter(run_id=claim.work_id).count(),
            cost=run_cost(locked, finished_at=finished).to_dict(),
        )
        notify_run_finished(run_id=claim.work_id)
    return True


def run_fail(*, run_id: int, kind: FailureKind, message: str, claim: Claim | None = None) -> bool:
    """Mark a run failed with its classified reason; give the quota back when the platform is at fault."""
    with transaction.atomic():
        updated = leases.mark_failed(EvaluationRun, pk=run_id, kind=kind, message=message, held_claim=claim)
        if updated and kind in PLATFORM_FAILURES:
            quota_refund(run=EvaluationRun.objects.select_related("submission").get(pk=run_id))
        if updated:
            notify_run_finished(run_id=run_id)
    return updated


def run_append_log(*, run_id: int, line: str) -> None:
    leases.append_log(EvaluationRun, pk=run_id, line=line)


# --- the submitter's run ------------------------------------------------------------------------------


def run_cancel(*, run: EvaluationRun, user: User) -> bool:
    """Cancel a queued or running run. The worker notices at its next heartbeat and stops."""
    _require_owner(run, user)
    updated = EvaluationRun.objects.filter(pk=run.pk, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).update(
        status=RunStatus.CANCELLED, finished_at=timezone.now(), lease_token=None, lease_expires_at=None
    )
    if updated:
        # the log is on the submission's page, public with it: a staff member is never named there
        who = "its submitter" if run.submission.owner_id == policy.user_id(user) else "the site's staff"
        run_append_log(run_id=run.pk, line=f"cancelled by {who}")
    return bool(updated)


def run_rerun(*, run: EvaluationRun, user: User) -> EvaluationRun:
    """Queue a fresh run of the same submission and benchmark on the current dataset version."""
    _require_owner(run, user)
    if not run.is_finished:
        raise SubmissionRefused("This run is still in progress; cancel it first or wait for it to finish.")
    return run_create(
        submission=run.submission, benchmark=run.benchmark, dataset_version=current_dataset(run.benchmark), rerun_of=run
    )


def _require_owner(run: EvaluationRun, user: User) -> None:
    if not policy.can_manage(user, run):
        raise PermissionError("Only the submitter or staff can change this run.")


# --- lost messages and workers ----------------------------------------------------------------------


def runs_resend_stale_queued(*, now: dt.datetime | None = None) -> int:
    """Send again the runs whose queue message is older than RUN_QUEUED_RESEND_SECONDS (lost with a broker
    restart, or never sent while the broker was down)."""
    return leases.resend_stale_queued(
        EvaluationRun.objects.exclude(phase=RunPhase.GENERATING).only("pk", "queue"),
        now=now or timezone.now(),
        send=lambda run: task_sends.evaluate_run(run.pk, queue=run.queue),
    )


def runs_requeue_expired(*, now: dt.datetime | None = None) -> tuple[int, int]:
    """Re-queue running runs whose lease expired (their worker died), or fail them after the last
    attempt. Returns (re-queued, failed)."""

    def give_up(run: EvaluationRun, message: str) -> bool:
        return run.lease_token is not None and run_fail(
            run_id=run.pk,
            kind=FailureKind.INFRASTRUCTURE,
            message=message,
            claim=Claim(run.pk, run.lease_token, run.attempt),
        )

    return leases.requeue_expired(
        EvaluationRun,
        now=now or timezone.now(),
        reason=lambda run: (
            f"worker {run.worker or '?'} stopped sending heartbeats (last at {run.heartbeat_at:%H:%M:%S} UTC)"
        ),
        send=lambda run: task_sends.evaluate_run(run.pk, queue=run.queue),
        give_up=give_up,
    )
