"""Writes for submissions and evaluation runs: creating submissions from predictions files, the
daily quota, the run life cycle (claim, heartbeat, batches of item results, completion, failure,
cancel, re-run) and re-queueing runs whose worker vanished.

Every state change is a compare-and-set ``UPDATE ... WHERE`` so that a redelivered Celery message,
a late worker or a double click does nothing instead of doing it twice.

The writes live in modules by concern, each importing only those before it: ``common`` (the refusal
and the dataset a benchmark takes submissions on), ``quota``, ``chunks`` (one run scored by several workers), ``runs``
(the run life cycle, and the generation job a registered model's runs wait for), then ``intake`` (predictions files,
baselines, registered models). This package is their public face: pages, the API, tasks, commands and the generation job
(``leaderboard.runs.generation``) import from here. A run's leaderboard row is filed by the chain above
(``leaderboard.chains.board_rows``), which calls ``run_complete``.
"""

from __future__ import annotations

from leaderboard.runs.services.chunks import (
    ChunkClaim,
    chunk_claim,
    chunk_finish,
    chunk_heartbeat,
    chunk_record_items,
    chunk_release,
    chunks_unfinished,
    run_request_helpers,
)
from leaderboard.runs.services.common import SubmissionRefused
from leaderboard.runs.services.intake import (
    BASELINE_OWNER,
    SETTINGS_MAX_DEPTH,
    SETTINGS_MAX_KEYS,
    baselines_submit,
    baselines_submit_interleaved,
    generation_settings_problem,
    model_check_submittable,
    submission_create_for_model,
    submission_create_from_predictions,
)
from leaderboard.runs.services.quota import QuotaExceeded, quota_refund, quota_remaining, quota_take
from leaderboard.runs.services.runs import (
    generation_job_queue,
    generation_queue_for,
    run_append_log,
    run_cancel,
    run_claim,
    run_complete,
    run_create,
    run_fail,
    run_heartbeat,
    run_rerun,
    run_set_provenance,
    runs_requeue_expired,
    runs_resend_stale_queued,
)

__all__ = [
    "BASELINE_OWNER",
    "SETTINGS_MAX_DEPTH",
    "SETTINGS_MAX_KEYS",
    "ChunkClaim",
    "QuotaExceeded",
    "SubmissionRefused",
    "baselines_submit",
    "baselines_submit_interleaved",
    "chunk_claim",
    "chunk_finish",
    "chunk_heartbeat",
    "chunk_record_items",
    "chunk_release",
    "chunks_unfinished",
    "generation_job_queue",
    "generation_queue_for",
    "generation_settings_problem",
    "model_check_submittable",
    "quota_refund",
    "quota_remaining",
    "quota_take",
    "run_append_log",
    "run_cancel",
    "run_claim",
    "run_complete",
    "run_create",
    "run_fail",
    "run_heartbeat",
    "run_request_helpers",
    "run_rerun",
    "run_set_provenance",
    "runs_requeue_expired",
    "runs_resend_stale_queued",
    "submission_create_for_model",
    "submission_create_from_predictions",
]
