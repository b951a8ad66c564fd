"""Writes for submissions and evaluation runs: creating submissions from predictions files, the
daily quota, the run life cycle (claim, heartbeat, batches of item results, completion, failure,
cancel, re-run) and re-queueing runs whose worker vanished.

Every state change is a compare-and-set ``UPDATE ... WHERE`` so that a redelivered Celery message,
a late worker or a double click does nothing instead of doing it twice.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from evaluators.core import modality as modalities
from evaluators.core import ItemScore, MetricValue, Prediction, PredictionsError
from evaluators.core.files import parse_predictions
from leaderboard import pagecache, queues
from leaderboard.accounts import policy
from leaderboard.catalog.evaluators import configured_evaluator, evaluator_settings_for, needed_modality
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.catalog.services import model_get_or_create
from leaderboard.submissions import leases
from leaderboard.submissions.keys import column_id, slice_key
from leaderboard.submissions.leases import Claim
from leaderboard.submissions.notifications import notify_run_finished
from leaderboard.submissions.models import (
    PLATFORM_FAILURES,
    EvaluationRun,
    FailureKind,
    GenerationJob,
    ItemResult,
    LeaderboardEntry,
    QuotaUsage,
    RunChunk,
    RunPhase,
    RunStatus,
    Score,
    Submission,
)

log = logging.getLogger(__name__)


class SubmissionRefused(ValueError):
    """A submission that cannot be accepted; ``field`` names the form field at fault, if any."""

    def __init__(self, message: str, *, field: str | None = None, problems: Sequence[tuple[int | None, str | None, str]] = ()):
        super().__init__(message)
        self.field = field
        self.problems = list(problems)


class QuotaExceeded(SubmissionRefused):
    pass


# --- quota --------------------------------------------------------------------------------------

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
            "runs that fail because of the platform are given back automatically.")


def quota_refund(*, run: EvaluationRun) -> None:
    """Give back the run's quota unit once (the platform failed, not the submitter)."""
    if EvaluationRun.objects.filter(pk=run.pk, quota_charged=True).update(quota_charged=False):
        QuotaUsage.objects.filter(user_id=run.submission.owner_id, day=run.created_at.date(), used__gt=0).update(used=F("used") - 1)


def quota_remaining(*, user: User) -> int:
    usage = QuotaUsage.objects.filter(user=user, day=timezone.now().date()).values_list("used", flat=True).first() or 0
    return max(0, settings.SUBMISSIONS_PER_DAY - usage)


# --- submissions --------------------------------------------------------------------------------

def _current_dataset(benchmark: Benchmark) -> DatasetVersion:
    if not benchmark.evaluator_key:
        raise SubmissionRefused(f"{benchmark.name} does not accept submissions yet: its evaluator has not landed.", field="benchmark")
    version = benchmark.dataset_versions.filter(is_current=True).first()
    if version is None:
        raise SubmissionRefused(f"{benchmark.name} has no dataset imported yet; an operator must run import_dataset first.", field="benchmark")
    return version


def submission_create_from_predictions(*, owner: User, benchmark: Benchmark, model_name: str, data: bytes,
                                       is_public: bool = True, note: str = "", release_date: dt.date | None = None) -> Submission:
    """Validate a predictions file completely, then store it and queue one run, all or nothing.

    Raises SubmissionRefused (with every problem, line and field) or QuotaExceeded; in either case
    nothing is stored and nothing is queued.
    """
    version = _current_dataset(benchmark)
    if not model_name.strip():
        raise SubmissionRefused("model name: give the name of the model that wrote these predictions.", field="model_name")
    try:
        predictions = parse_predictions(data, version.item_ids, max_bytes=settings.PREDICTIONS_MAX_BYTES)
    except PredictionsError as exc:
        raise SubmissionRefused(f"The predictions file was not accepted: {exc}", field="predictions", problems=exc.problems) from None
    _check_transcripts(benchmark, predictions)
    digest = hashlib.sha256(data).hexdigest()
    stored_key = default_storage.save(f"predictions/{benchmark.slug}/{digest[:16]}-{uuid.uuid4().hex[:8]}.jsonl", ContentFile(data))
    try:
        with transaction.atomic():
            # a model first named by this upload answered the benchmark's input, so it takes its modality
            needed = needed_modality(benchmark)
            model = model_get_or_create(owner=owner, name=model_name, is_public=is_public, release_date=release_date,
                                        modality=needed)
            refused = modalities.refusal(model_name=model.name, model_modality=model.modality, benchmark_name=benchmark.name,
                                       needed=needed)
            if refused:
                raise SubmissionRefused(refused, field="model_name")
            submission = Submission.objects.create(
                model=model, owner=owner, is_public=is_public, predictions_key=stored_key, predictions_sha256=digest,
                predictions_count=len(predictions), note=note[:200])
            run_create(submission=submission, benchmark=benchmark, dataset_version=version)
    except BaseException:
        default_storage.delete(stored_key)  # nothing half-stored
        raise
    return submission


def _check_transcripts(benchmark: Benchmark, predictions: list[Prediction]) -> None:
    """A benchmark whose protocol is a conversation with the platform (``Evaluator.needs_transcript``)
    scores only predictions that carry their transcript: refuse the others, saying why."""
    reason = configured_evaluator(benchmark).needs_transcript()
    bare = [p for p in predictions if not p.transcript]
    if reason and bare:
        raise SubmissionRefused(
            f"The predictions file was not accepted: {reason} {len(bare)} line(s) have no transcript (the first: item "
            f"'{bare[0].item_id}'). Register the model and submit it so the platform runs the conversation, or add each "
            "line's transcript.", field="predictions",
            problems=[(None, "transcript", f"{len(bare)} line(s) have no transcript; {reason}")])


BASELINE_OWNER = "baselines"


def baselines_submit(*, benchmark: Benchmark) -> list[Submission]:
    """Submit the evaluator's baseline predictions (``Evaluator.baseline_predictions``) for the
    benchmark's current dataset version, scored like any submission: one reference model per baseline,
    owned by the inactive staff user "baselines", marked ``is_reference`` (shown, never ranked). A
    baseline already submitted on this version is left alone, so the call is idempotent."""
    from django.contrib.auth import get_user_model

    from evaluators.core.files import read_items
    from leaderboard.catalog.services import dataset_items_path

    version = benchmark.dataset_versions.filter(is_current=True).first()
    if not benchmark.evaluator_key or version is None:
        return []
    items = read_items(dataset_items_path(version, Path(settings.VAR_DIR) / "cache" / "datasets"))
    baselines = configured_evaluator(benchmark).baseline_predictions(items)
    if not baselines:
        return []
    owner, created = get_user_model().objects.get_or_create(username=BASELINE_OWNER, defaults={"is_active": False, "is_staff": True})
    if created:
        owner.set_unusable_password()
        owner.save(update_fields=["password"])
    submitted = []
    for name, data in baselines.items():
        model_name = f"{name} (baseline)"
        if EvaluationRun.objects.filter(submission__model__owner=owner, submission__model__name=model_name,
                                        dataset_version=version).exists():
            continue
        with transaction.atomic():
            submission = submission_create_from_predictions(owner=owner, benchmark=benchmark, model_name=model_name, data=data,
                                                            note="reference predictions written by the evaluator")
            Model.objects.filter(pk=submission.model_id).update(is_reference=True, organization="reference")
            pagecache.boards_changed()
        submitted.append(submission)
    return submitted


def run_create(*, submission: Submission, benchmark: Benchmark, dataset_version: DatasetVersion,
               rerun_of: EvaluationRun | None = None) -> EvaluationRun:
    """Create a queued run (charging the quota) and send it to its queue once the transaction commits.
    A run of a model that must answer first starts in phase "generating": its submission's
    GenerationJob (created or re-queued here) hands it to scoring once its predictions exist."""
    generating = submission.model.needs_generation
    with transaction.atomic():
        quota_take(user=submission.owner)
        run = EvaluationRun.objects.create(
            submission=submission, benchmark=benchmark, dataset_version=dataset_version, queue=queues.CPU,
            evaluator_key=benchmark.evaluator_key, evaluator_settings=evaluator_settings_for(benchmark),
            items_total=dataset_version.item_count, max_attempts=settings.RUN_MAX_ATTEMPTS, rerun_of=rerun_of,
            phase=RunPhase.GENERATING if generating else RunPhase.NONE)
        size = max(1, settings.RUN_CHUNK_ITEMS)
        ids = dataset_version.item_ids
        RunChunk.objects.bulk_create([RunChunk(run=run, index=i // size, item_ids=ids[i:i + size]) for i in range(0, len(ids), size)])
        if generating:
            generation_job_queue(submission=submission)
        else:
            queues.evaluate_run(run.pk, queue=run.queue)
    return run


# --- submissions of registered models: generation in workers -----------------------------------

def generation_queue_for(model: Model) -> str:
    """Self-hosted weights need a GPU worker; endpoints only need the network (cpu)."""
    return queues.CPU if model.source == Model.SOURCE_ENDPOINT else queues.gpu_queue(settings.GPU_KIND)


def model_check_submittable(*, model: Model, owner: User) -> None:
    """Refuse a model that cannot be run: another's private model or endpoint, predictions-only, or not pre-flighted."""
    others_may_run = model.is_public and model.source in (Model.SOURCE_HF, Model.SOURCE_WEIGHTS)  # never another's endpoint key
    if not policy.can_manage(owner, model) and not others_may_run:
        raise SubmissionRefused(f"model: '{model.name}' belongs to another user (only public self-hosted models can be run by anyone).",
                                field="model")
    if not model.needs_generation:
        raise SubmissionRefused(f"model: '{model.name}' is registered for predictions files only; upload a predictions file instead.", field="model")
    if model.preflight_status == Model.PREFLIGHT_PENDING:
        raise SubmissionRefused(f"model: the pre-flight check of '{model.name}' has not finished yet; submit once it passed "
                                "(its page shows the status).", field="model")
    if model.preflight_status == Model.PREFLIGHT_FAILED:
        problems = "; ".join(f"{fld}: {msg}" for fld, msg in (model.preflight_report or {}).get("problems", [])) or "see the model's page"
        raise SubmissionRefused(f"model: the pre-flight check of '{model.name}' failed ({problems}); fix the model and re-run it.", field="model")


def submission_create_for_model(*, owner: User, model: Model, benchmarks: Sequence[Benchmark],
                                generation_settings: dict | None = None, is_public: bool = True, note: str = "") -> Submission:
    """Submit a registered model to benchmarks: one run per benchmark, all generated by one job
    (one model load) on the queue the model needs, then scored on ``cpu``. All or nothing."""
    model_check_submittable(model=model, owner=owner)
    if not benchmarks:
        raise SubmissionRefused("benchmarks: choose at least one benchmark.", field="benchmarks")
    versions = [(b, _current_dataset(b)) for b in benchmarks]
    for benchmark, _ in versions:
        refused = modalities.refusal(model_name=model.name, model_modality=model.modality, benchmark_name=benchmark.name,
                                   needed=needed_modality(benchmark))
        if refused:
            raise SubmissionRefused(refused, field="benchmarks")
    with transaction.atomic():
        submission = Submission.objects.create(model=model, owner=owner, is_public=is_public and model.is_public,
                                               generation_settings={**model.generation_defaults, **(generation_settings or {})},
                                               note=note[:200])
        for benchmark, version in versions:
            run_create(submission=submission, benchmark=benchmark, dataset_version=version)
    return submission


def generation_job_queue(*, submission: Submission) -> GenerationJob:
    """The submission's generation job, created queued, or re-queued when it had finished (a re-run
    needs a model load again); sent to its queue on commit. Harmless when already queued/running."""
    job, created = GenerationJob.objects.get_or_create(
        submission=submission, defaults={"queue": generation_queue_for(submission.model), "max_attempts": settings.RUN_MAX_ATTEMPTS})
    if not created:
        if not GenerationJob.objects.filter(pk=job.pk, status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED]).update(
                status=RunStatus.QUEUED, attempt=0, failure_kind="", failure_message="", finished_at=None, queued_at=timezone.now(),
                requests_done=0, requests_total=0):
            return job  # queued or running: it picks up the new run when it starts, or the reaper re-queues it
    queues.generate_submission(job.pk, queue=job.queue)
    return job


# --- run life cycle -----------------------------------------------------------------------------

def run_claim(*, run_id: int, worker: str) -> Claim | None:
    """Take a queued run for this worker. Returns None when another worker has it or it is finished
    (so a redelivered message does nothing); a run still waiting for its generation job is not ready."""
    return leases.claim(EvaluationRun, pk=run_id, worker=worker, exclude=Q(phase=RunPhase.GENERATING),
                        progress_started_at=timezone.now(), progress_started_done=F("items_done"))


def run_heartbeat(*, claim: Claim) -> bool:
    """Extend the lease. False means the run was cancelled or taken over: the worker must stop."""
    return leases.heartbeat(EvaluationRun, claim)


def run_set_provenance(*, claim: Claim, evaluator_version: str, environment: dict[str, Any]) -> bool:
    return bool(leases.held(EvaluationRun, claim).update(evaluator_version=evaluator_version, environment=environment))


# --- chunks: one run scored by several workers -----------------------------------------------

@dataclass(frozen=True)
class ChunkClaim:
    run_id: int
    chunk_id: int
    token: uuid.UUID
    item_ids: tuple[str, ...]


def chunk_claim(*, run_id: int, worker: str) -> ChunkClaim | None:
    """Take the next unfinished chunk of a running run that nobody holds (or whose holder's claim
    expired). None when there is none left to take."""
    for _ in range(10):  # lost races with other workers: try the next candidate
        now = timezone.now()
        candidate = (RunChunk.objects.filter(run_id=run_id, run__status=RunStatus.RUNNING, done=False)
                     .filter(Q(lease_token__isnull=True) | Q(lease_expires_at__lt=now)).order_by("index")
                     .values_list("pk", "lease_token", "item_ids").first())
        if candidate is None:
            return None
        pk, old_token, item_ids = candidate
        token = uuid.uuid4()
        if RunChunk.objects.filter(pk=pk, done=False, lease_token=old_token).update(
                lease_token=token, worker=worker[:200], lease_expires_at=leases.lease_expiry(now)):
            return ChunkClaim(run_id=run_id, chunk_id=pk, token=token, item_ids=tuple(item_ids))
    return None


def chunk_heartbeat(*, claim: ChunkClaim) -> bool:
    """Extend a chunk claim; False when the run stopped or the chunk was taken over."""
    return bool(RunChunk.objects.filter(pk=claim.chunk_id, lease_token=claim.token, done=False, run__status=RunStatus.RUNNING).update(
        lease_expires_at=leases.lease_expiry()))


def chunk_record_items(*, claim: ChunkClaim, item_scores: Sequence[ItemScore], primary_key: str | None) -> bool:
    """Write a batch of a chunk's item results and the run's progress in one transaction, only
    while this worker holds the chunk and the run is running."""
    with transaction.atomic():
        held = RunChunk.objects.select_for_update().filter(pk=claim.chunk_id, lease_token=claim.token, done=False).first()
        if held is None or not EvaluationRun.objects.filter(pk=claim.run_id, status=RunStatus.RUNNING).exists():
            return False
        ItemResult.objects.bulk_create(
            [ItemResult(run_id=claim.run_id, item_id=s.item_id, slices=s.slices, scores=s.scores, detail=s.detail,
                        error=s.error, primary_score=s.scores.get(primary_key) if primary_key else None) for s in item_scores],
            ignore_conflicts=True)
        EvaluationRun.objects.filter(pk=claim.run_id).update(items_done=ItemResult.objects.filter(run_id=claim.run_id).count())
    return True


def chunk_finish(*, claim: ChunkClaim) -> bool:
    return bool(RunChunk.objects.filter(pk=claim.chunk_id, lease_token=claim.token, done=False).update(done=True, lease_expires_at=None))


def chunk_release(*, claim: ChunkClaim) -> None:
    """Give a chunk back at once (a helper that hit an error), so the run's owner takes it."""
    RunChunk.objects.filter(pk=claim.chunk_id, lease_token=claim.token, done=False).update(lease_token=None, lease_expires_at=None)


def chunks_unfinished(*, run_id: int) -> int:
    return RunChunk.objects.filter(run_id=run_id, done=False).count()


def run_request_helpers(*, run: EvaluationRun, count: int) -> int:
    """Ask up to ``count`` other workers on the run's queue to claim chunks of this run."""
    count = max(0, min(count, chunks_unfinished(run_id=run.pk) - 1))
    for _ in range(count):
        queues.help_run(run.pk, queue=run.queue)
    return count


def run_complete(*, claim: Claim, metrics: Iterable[MetricValue]) -> bool:
    """Store the run's scores and mark it succeeded, atomically and only once."""
    with transaction.atomic():
        locked = leases.held(EvaluationRun, claim).select_for_update().first()
        if locked is None:
            return False
        Score.objects.filter(run_id=claim.work_id).delete()
        Score.objects.bulk_create([
            Score(run_id=claim.work_id, key=m.key, slice_key=slice_key(m.slice), value=m.value, ci_low=m.ci_low,
                  ci_high=m.ci_high, n=m.n) for m in metrics])
        EvaluationRun.objects.filter(pk=claim.work_id).update(
            status=RunStatus.SUCCEEDED, finished_at=timezone.now(), lease_token=None, lease_expires_at=None,
            items_done=ItemResult.objects.filter(run_id=claim.work_id).count())
        leaderboard_entry_refresh(run=EvaluationRun.objects.select_related("submission__model").get(pk=claim.work_id))
        notify_run_finished(run_id=claim.work_id)
    return True


def leaderboard_entry_refresh(*, run: EvaluationRun) -> None:
    """Make this succeeded run the model's leaderboard row unless a newer run is there already."""
    submission = run.submission
    is_public = submission.is_public and submission.model.is_public
    values = {column_id(k, sk): [v, lo, hi, n]
              for k, sk, v, lo, hi, n in Score.objects.filter(run=run).values_list("key", "slice_key", "value", "ci_low", "ci_high", "n")}
    key = {"benchmark_id": run.benchmark_id, "dataset_version_id": run.dataset_version_id, "model_id": submission.model_id, "is_public": is_public}
    current = LeaderboardEntry.objects.select_for_update().filter(**key).first()
    finished_at = run.finished_at or timezone.now()  # set when the run succeeded, before it reaches a board
    if current is None:
        LeaderboardEntry.objects.create(**key, run=run, values=values, finished_at=finished_at)
    elif current.finished_at <= finished_at:
        current.run, current.values, current.finished_at = run, values, finished_at
        current.save(update_fields=["run", "values", "finished_at"])


def leaderboards_rebuild() -> int:
    """Recompute every leaderboard row from the succeeded runs (after an import or a data fix)."""
    with transaction.atomic():
        LeaderboardEntry.objects.all().delete()
        runs = EvaluationRun.objects.filter(status=RunStatus.SUCCEEDED).select_related("submission__model").order_by("finished_at")
        for run in runs:
            leaderboard_entry_refresh(run=run)
        return LeaderboardEntry.objects.count()


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


def run_cancel(*, run: EvaluationRun, user: User) -> bool:
    """Cancel a queued or running run. The worker notices at its next heartbeat and stops."""
    _require_owner(run, user)
    updated = EvaluationRun.objects.filter(pk=run.pk, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).update(
        status=RunStatus.CANCELLED, finished_at=timezone.now(), lease_token=None, lease_expires_at=None)
    if updated:
        run_append_log(run_id=run.pk, line=f"cancelled by {user}")
    return bool(updated)


def run_rerun(*, run: EvaluationRun, user: User) -> EvaluationRun:
    """Queue a fresh run of the same submission and benchmark on the current dataset version."""
    _require_owner(run, user)
    if not run.is_finished:
        raise SubmissionRefused("This run is still in progress; cancel it first or wait for it to finish.")
    return run_create(submission=run.submission, benchmark=run.benchmark, dataset_version=_current_dataset(run.benchmark), rerun_of=run)


def _require_owner(run: EvaluationRun, user: User) -> None:
    if not policy.can_manage(user, run):
        raise PermissionError("Only the submitter or staff can change this run.")


def runs_resend_stale_queued(*, now: dt.datetime | None = None) -> int:
    """Send again the runs whose queue message is older than RUN_QUEUED_RESEND_SECONDS (lost with a broker
    restart, or never sent while the broker was down)."""
    return leases.resend_stale_queued(EvaluationRun.objects.exclude(phase=RunPhase.GENERATING).only("pk", "queue"),
                                      now=now or timezone.now(), send=lambda run: queues.evaluate_run(run.pk, queue=run.queue))


def runs_requeue_expired(*, now: dt.datetime | None = None) -> tuple[int, int]:
    """Re-queue running runs whose lease expired (their worker died), or fail them after the last
    attempt. Returns (re-queued, failed)."""
    def give_up(run: EvaluationRun, message: str) -> bool:
        return run.lease_token is not None and run_fail(run_id=run.pk, kind=FailureKind.INFRASTRUCTURE, message=message,
                                                        claim=Claim(run.pk, run.lease_token, run.attempt))

    return leases.requeue_expired(
        EvaluationRun, now=now or timezone.now(),
        reason=lambda run: f"worker {run.worker or '?'} stopped sending heartbeats (last at {run.heartbeat_at:%H:%M:%S} UTC)",
        send=lambda run: queues.evaluate_run(run.pk, queue=run.queue), give_up=give_up)
