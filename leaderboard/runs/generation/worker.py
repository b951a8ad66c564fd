"""Generating a submission's predictions in a worker: one GenerationJob per submission, one model
load for all its runs.

The worker claims the job (compare-and-set lease, like a run), reaches the model once (an
OpenAI-compatible endpoint as it is, or a model server started in its own process group through
evaluators.llm.server: ``transformers serve`` on a CPU, ``vllm serve`` on GPU workers; never torch or
CUDA inside the Celery process), builds each run's requests with the evaluator's ``build_requests``,
sends them with ``ChatClient.chat_many`` (bounded concurrency; one pass of them is ``sending``) and
stores each answer as it arrives (one GeneratedOutput per run, item, sample and stage, so a resumed job
never asks twice). A multi-turn evaluator (one with ``follow_up``) is asked, in tool threads, what
follows each stored stage; its follow-up requests join the same bounded stream of requests, and a resumed
job decides again from the last stored stage. A run whose outputs are complete gets its predictions JSONL
(with every error kind, and the transcript of multi-turn items) written to storage and is queued for
scoring on ``cpu``. The server is stopped at the end, and killed on timeout or cancel.

A bad single answer (empty, cut off, invalid) is a prediction that scores as wrong. A wrong key, an
unreachable endpoint or a model that does not load fails the job and its waiting runs with a
classified reason; a self-hosted server that dies mid-run is restarted once, then the runs fail as
``model_load`` / ``out_of_memory`` with the server's log tail.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings

from evaluators.core.settings import GenerationSettings
from evaluators.core.types import ServerOptions, Stage
from evaluators.llm.types import ModelError
from leaderboard.catalog.models import Model
from leaderboard.modelhost.access import ModelAccess, model_access
from leaderboard.runs import leases
from leaderboard.runs.generation import jobs
from leaderboard.runs.generation.plans import (
    STAGE_COLUMNS,
    RunPlan,
    outstanding,
    plan_run,
    predictions_line,
    stage_of_row,
)
from leaderboard.runs.generation.sending import Fatality, Limits, Progress, send_once
from leaderboard.runs.leases import LeaseLost
from leaderboard.runs.models import FailureKind, GeneratedOutput, GenerationJob

__all__ = ["generation_execute"]

log = logging.getLogger(__name__)

FAILURE_OF = {
    "model_load": FailureKind.MODEL_LOAD,
    "out_of_memory": FailureKind.OUT_OF_MEMORY,
    "timeout": FailureKind.TIMEOUT,
    "endpoint": FailureKind.ENDPOINT_ERROR,
    "output": FailureKind.ENDPOINT_ERROR,
}


def _refusal(exc: Exception) -> leases.Refusal | None:
    """A model that fails to load, runs out of memory or answers nothing usable fails the job."""
    if isinstance(exc, ModelError):
        kind = FAILURE_OF[exc.kind]
        return leases.Refusal(kind, str(exc), f"failed: {kind}")
    return None


def _lease_lost(claim: leases.Claim) -> str:
    if jobs.generation_stop_cancelled(claim=claim):
        return "stopped: every run was cancelled (model server stopped)"
    return "stopped: lease lost (taken over)"


def _generate_body(claim: leases.Claim, heartbeat: leases.Heartbeat, worker: str) -> str:
    return f"succeeded: {_generate(claim, heartbeat)} run(s) handed to scoring"


GENERATION_TASK = leases.LeasedTask(
    model=GenerationJob,
    what="generation job",
    claim=lambda pk, worker: jobs.generation_claim(job_id=pk, worker=worker),
    beat=lambda claim: jobs.generation_heartbeat(claim=claim),
    body=_generate_body,
    refusal=_refusal,
    fail=lambda claim, kind, message: jobs.generation_fail(
        claim=claim, job_id=claim.work_id, kind=FailureKind(kind), message=message
    ),
    lease_lost=_lease_lost,
)


def generation_execute(*, job_id: int, worker: str | None = None) -> str:
    """Generate every waiting run of the job's submission. Returns what happened, for the log."""
    return leases.execute_leased(GENERATION_TASK, pk=job_id, worker=worker)


def _generate(claim: leases.Claim, heartbeat: leases.Heartbeat) -> int:
    job = GenerationJob.objects.select_related("submission__model__weights_upload").get(pk=claim.work_id)
    model = job.submission.model
    generation = GenerationSettings.from_json(job.submission.generation_settings)
    plans = [plan_run(run, generation) for run in jobs.generation_runs_waiting(job=job)]
    if not plans:
        if not jobs.generation_finish(
            claim=claim, log_line=f"attempt {claim.attempt}: no run waits for outputs; nothing to load"
        ):
            raise LeaseLost()
        return 0
    total = sum(p.total for p in plans)
    progress = Progress(claim, heartbeat, total - sum(p.remaining() for p in plans), total)
    line = (
        f"attempt {claim.attempt}: {len(plans)} run(s), {total - progress.done} of {total} request(s) to send "
        f"({model.get_source_display()})"
    )

    def announce() -> None:
        progress.write(force=True)
        jobs.generation_append_log(job_id=job.pk, line=line)

    if model.source != Model.SOURCE_ENDPOINT:  # a model load takes a while: say what comes first
        announce()
    usage = [0, 0]
    handed = 0
    limits = Limits(deadline=time.monotonic() + settings.GENERATION_TIME_LIMIT, fatal=Fatality())
    options = ServerOptions()
    for plan in plans:
        options = options.merged(plan.options)
    with model_access(model, job_id=job.pk, options=options) as access:
        environment = {**access.environment, "generation_settings": job.submission.generation_settings or {}}

        def started() -> None:  # bookkeeping while the first requests are in flight
            if model.source == Model.SOURCE_ENDPOINT:
                announce()
            jobs.generation_set_environment(claim=claim, environment=environment)

        seen = {plan.run.pk for plan in plans}
        on_started: Any = started
        while plans:
            plan = plans.pop(0)
            _send_all(access, plan, claim, heartbeat, progress, usage, limits, on_started)
            on_started = None
            environment["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
            if jobs.generation_hand_to_scoring(
                run=plan.run, data=_predictions_jsonl(plan), count=sum(plan.samples.values()), environment=environment
            ):
                handed += 1
            if not plans:  # a re-run queued while this job ran: same model load
                plans = [
                    plan_run(run, generation) for run in jobs.generation_runs_waiting(job=job) if run.pk not in seen
                ]
                seen |= {plan.run.pk for plan in plans}
                progress.total += sum(p.total for p in plans)
    if not jobs.generation_finish(
        claim=claim,
        environment=environment,
        done=progress.done,
        total=progress.total,
        log_line=f"done: {handed} run(s) handed to scoring; tokens {usage[0]} in, {usage[1]} out",
    ):
        raise LeaseLost()
    return handed


def _send_all(
    access: ModelAccess,
    plan: RunPlan,
    claim: leases.Claim,
    heartbeat: leases.Heartbeat,
    progress: Progress,
    usage: list[int],
    limits: Limits,
    on_started: Any = None,
) -> None:
    """Send a run's pending requests (and its follow-ups), storing answers from this (the Celery)
    thread as they arrive. A fatal error from a self-hosted server that died restarts it once and sends
    what is left."""
    for restart in range(2):
        fatal = send_once(access, plan, heartbeat, progress, usage, limits, on_started)
        on_started = None
        if heartbeat.lost.is_set():
            raise LeaseLost()
        if fatal is None:
            return
        progress.write(force=True)
        if restart == 0 and access.restartable and not access.alive():
            jobs.generation_append_log(
                job_id=claim.work_id, line=f"the model server died ({fatal}); restarting it once"
            )
            access.restart()
            outstanding(plan)
            continue
        raise access.explain(fatal)
    raise AssertionError("unreachable")


def _predictions_jsonl(plan: RunPlan) -> bytes:
    """The run's predictions file, one line per (item, sample) in that order: the lines made as this
    job stored or found the answers, read back only if some answer met one stored by someone else. A
    multi-turn run's lines carry their transcripts, read back from the stored stages."""
    if plan.turns is not None:
        conversations: dict[tuple[str, int], list[Stage]] = {}
        for row in (
            GeneratedOutput.objects.filter(run=plan.run)
            .order_by("item_id", "sample_index", "stage")
            .values(*STAGE_COLUMNS)
        ):
            conversations.setdefault((row["item_id"], row["sample_index"]), []).append(stage_of_row(row))
        return "".join(
            predictions_line(*key, stages[-1].answer, stages[-1].error_kind, stages[-1].error, stages)
            for key, stages in conversations.items()
        ).encode()
    if plan.outputs_stale or len(plan.lines) != sum(plan.samples.values()):
        rows = (
            GeneratedOutput.objects.filter(run=plan.run)
            .order_by("item_id", "sample_index")
            .values_list("item_id", "sample_index", "output", "error_kind", "error")
        )
        return "".join(predictions_line(*row) for row in rows).encode()
    return "".join(plan.lines[key] for key in sorted(plan.lines)).encode()
