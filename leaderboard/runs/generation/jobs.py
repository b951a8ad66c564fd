"""Generation jobs: one model load per submission. A worker claims the job under a lease
(``leases``), its answers are stored as they arrive (unique per run, item and sample, so a resumed
job never asks twice), each run's predictions file is handed to scoring, and a job whose worker died
is re-queued or failed with every run still waiting for it. The worker's side is
``leaderboard.runs.generation.worker``."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, models, transaction
from django.utils import timezone

from leaderboard import task_sends
from leaderboard.runs import leases
from leaderboard.runs.leases import Claim
from leaderboard.runs.models import (
    EvaluationRun,
    FailureKind,
    GenerationJob,
    RunPhase,
    RunStatus,
    Submission,
)
from leaderboard.runs.services import generation_job_queue, run_fail
from leaderboard.runs.work_kinds import is_site_work


def generation_claim(*, job_id: int, worker: str) -> Claim | None:
    """Take a queued generation job (compare-and-set, like a run). None: someone else has it."""
    return leases.claim(GenerationJob, pk=job_id, worker=worker)


def generation_heartbeat(*, claim: Claim) -> bool:
    """Extend the job's lease. False: the job was taken over, or none of its runs still waits for
    outputs (all cancelled), so the worker must stop and stop the model server."""
    if not EvaluationRun.objects.filter(
        submission__generation__pk=claim.work_id, phase=RunPhase.GENERATING, status=RunStatus.QUEUED
    ).exists():
        return False
    return leases.heartbeat(GenerationJob, claim)


def generation_runs_waiting(*, job: GenerationJob) -> list[EvaluationRun]:
    return list(
        EvaluationRun.objects.filter(
            submission_id=job.submission_id, phase=RunPhase.GENERATING, status=RunStatus.QUEUED
        )
        .select_related("benchmark", "dataset_version")
        .order_by("pk")
    )


def generation_progress(*, claim: Claim, done: int, total: int) -> bool:
    return bool(leases.held(GenerationJob, claim).update(requests_done=done, requests_total=total))


#: the columns generation_record_outputs writes, after ``run_id``, each with its model default
_OUTPUT_FIELDS = (
    "item_id",
    "sample_index",
    "stage",
    "output",
    "finish_reason",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "error_kind",
    "error",
    "messages",
    "tool",
)
_JSON_FIELDS = frozenset({"messages", "tool"})


def generation_record_outputs(*, run_id: int, outputs: Sequence[dict]) -> set[tuple[str, int, int]]:
    """Store answers as they arrive; a (run, item, sample, stage) stored already is kept as it is. One
    ``INSERT ... ON CONFLICT DO NOTHING RETURNING`` per batch (no transaction around it: one statement
    is atomic), so the caller learns which answers are the stored ones without reading them back.
    Returns the (item_id, sample_index, stage) keys this call stored."""
    from leaderboard.runs.models import GeneratedOutput

    meta = GeneratedOutput._meta
    fields = [meta.get_field(name) for name in _OUTPUT_FIELDS]
    defaults = {field.name: field.get_default() for field in fields if isinstance(field, models.Field)}
    for output in outputs:
        unknown = output.keys() - defaults.keys()
        if unknown or "item_id" not in output:
            raise ValueError(
                f"generated output for item {output.get('item_id')!r}: unknown field(s) {sorted(unknown)} "
                f"or no item_id; allowed: {', '.join(_OUTPUT_FIELDS)}"
            )
    quote = connection.ops.quote_name
    columns = ", ".join(quote(c) for c in (meta.get_field("run").column, *_OUTPUT_FIELDS))
    json_value = (
        "%s::jsonb" if connection.vendor == "postgresql" else "%s"
    )  # SQLite (the embedded default) keeps JSON as text
    row = "(%s, " + ", ".join(json_value if f in _JSON_FIELDS else "%s" for f in _OUTPUT_FIELDS) + ")"

    def value(output: dict, name: str) -> Any:
        found = output.get(name, defaults[name])
        return json.dumps(found) if name in _JSON_FIELDS else found

    stored: set[tuple[str, int, int]] = set()
    with connection.cursor() as cursor:
        for start in range(0, len(outputs), 500):
            chunk = outputs[start : start + 500]
            params = [v for output in chunk for v in (run_id, *(value(output, f) for f in _OUTPUT_FIELDS))]
            cursor.execute(
                f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES {', '.join([row] * len(chunk))} "
                f"ON CONFLICT DO NOTHING RETURNING {quote('item_id')}, {quote('sample_index')}, {quote('stage')}",
                params,
            )
            stored.update((item_id, sample_index, stage) for item_id, sample_index, stage in cursor.fetchall())
    return stored


def generation_hand_to_scoring(*, run: EvaluationRun, data: bytes, count: int, environment: dict) -> bool:
    """Store the run's generated predictions file and queue the run for scoring, once: one
    compare-and-set UPDATE (phase, file, environment, log line). ``run`` is the run as the job read
    it; nothing else writes a run's environment while it waits for its outputs."""
    digest = hashlib.sha256(data).hexdigest()
    key = default_storage.save(f"predictions/generated/run-{run.pk}-{digest[:16]}.jsonl", ContentFile(data))
    line = f"generated {count} prediction(s) (sha256 {digest[:12]}); queued for scoring"
    handed = EvaluationRun.objects.filter(pk=run.pk, phase=RunPhase.GENERATING, status=RunStatus.QUEUED).update(
        phase=RunPhase.SCORING,
        predictions_key=key,
        queued_at=timezone.now(),
        environment={**(run.environment or {}), "generation": environment},
        log=leases.log_line(line),
    )
    if not handed:
        transaction.on_commit(lambda: default_storage.delete(key))
        return False
    task_sends.evaluate_run(run.pk, queue=run.queue)  # sent once it commits (now, outside a transaction)
    return True


def generation_append_log(*, job_id: int, line: str) -> None:
    leases.append_log(GenerationJob, pk=job_id, line=line)


def generation_set_environment(*, claim: Claim, environment: dict) -> None:
    GenerationJob.objects.filter(pk=claim.work_id, lease_token=claim.token).update(environment=environment)


def generation_finish(
    *,
    claim: Claim,
    log_line: str = "",
    environment: dict | None = None,
    done: int | None = None,
    total: int | None = None,
) -> bool:
    """Mark the job succeeded (compare-and-set on its lease), with its last log line, environment and
    progress in the same UPDATE."""
    updates: dict = {
        "status": RunStatus.SUCCEEDED,
        "finished_at": timezone.now(),
        "lease_token": None,
        "lease_expires_at": None,
    }
    if log_line:
        updates["log"] = leases.log_line(log_line)
    if environment is not None:
        updates["environment"] = environment
    if done is not None and total is not None:
        updates.update(requests_done=done, requests_total=total)
    return bool(leases.held(GenerationJob, claim).update(**updates))


def generation_stop_cancelled(*, claim: Claim) -> bool:
    """The job stopped because none of its runs waits any more (all cancelled): mark it cancelled."""
    if EvaluationRun.objects.filter(
        submission__generation__pk=claim.work_id, phase=RunPhase.GENERATING, status=RunStatus.QUEUED
    ).exists():
        return False
    return bool(
        leases.held(GenerationJob, claim).update(
            status=RunStatus.CANCELLED, finished_at=timezone.now(), lease_token=None, lease_expires_at=None
        )
    )


def generation_fail(*, claim: Claim | None, job_id: int, kind: FailureKind, message: str) -> int:
    """Fail the job and every run of it still waiting for outputs, with the same classified reason.
    Returns the runs failed."""
    failed = 0
    with transaction.atomic():
        job = GenerationJob.objects.filter(pk=job_id).first()
        if job is None or not leases.mark_failed(
            GenerationJob, pk=job_id, kind=kind, message=message, held_claim=claim
        ):
            return 0
        for run in generation_runs_waiting(job=job):
            failed += run_fail(run_id=run.pk, kind=kind, message=message)
    return failed


def _send(job: GenerationJob) -> None:
    """Send a job to its queue again, the site's own after people's (``task_sends.generate_submission``)."""
    task_sends.generate_submission(job.pk, queue=job.queue, site_work=is_site_work(job.submission))


def generation_jobs_requeue_expired(*, now: dt.datetime | None = None) -> tuple[int, int]:
    """Re-queue running generation jobs whose worker died, or fail them after the last attempt."""
    now = now or timezone.now()

    def give_up(job: GenerationJob, message: str) -> bool:
        return job.lease_token is not None and bool(
            generation_fail(
                claim=Claim(job.pk, job.lease_token, job.attempt),
                job_id=job.pk,
                kind=FailureKind.INFRASTRUCTURE,
                message=message,
            )
        )

    requeued, failed = leases.requeue_expired(
        GenerationJob,
        now=now,
        reason=lambda job: f"generation worker {job.worker or '?'} stopped sending heartbeats",
        send=_send,
        give_up=give_up,
    )
    # a queued job whose message was lost (a broker restart) or never sent (the broker was down)
    requeued += leases.resend_stale_queued(
        GenerationJob.objects.select_related("submission__owner", "submission__model"), now=now, send=_send
    )
    # a run queued just as its submission's job finished (a re-run racing the end): load the model again
    stale = now - dt.timedelta(seconds=settings.RUN_QUEUED_RESEND_SECONDS)
    for submission_id in set(
        EvaluationRun.objects.filter(
            phase=RunPhase.GENERATING,
            status=RunStatus.QUEUED,
            queued_at__lt=stale,
            submission__generation__status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED],
        ).values_list("submission_id", flat=True)
    ):
        with transaction.atomic():
            generation_job_queue(submission=Submission.objects.select_related("model").get(pk=submission_id))
            requeued += 1
    return requeued, failed
