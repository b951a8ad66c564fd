"""Which failed requests end a generation job, and the job's own wall clock: the job function run
in-process (as the Celery task runs it) against the scripted OpenAI-compatible server, on Postgres.

A request the endpoint refuses on its own (HTTP 400: a prompt over the context length) and a single
request that times out are bad answers, scored as wrong, and the job goes on; more timeouts than
GENERATION_MAX_TIMEOUTS mean a hung server and fail the job; the job's deadline is enforced by the
job itself, because a GPU worker's solo pool ignores Celery's time limits."""

from __future__ import annotations

import json

import pytest

from leaderboard.catalog.models import Model
from leaderboard.modelhost import services as modelhost
from leaderboard.runs import services as submissions
from leaderboard.runs.generation.worker import generation_execute
from leaderboard.runs.models import EvaluationRun, FailureKind, GeneratedOutput, RunStatus
from tests.modelhost.conftest import python_solver
from tests.support.openai_server import OpenAIServer, Reply

pytestmark = pytest.mark.django_db(transaction=True)


def submit(user, benchmark, server: OpenAIServer):
    model = modelhost.model_register(
        owner=user,
        name="limits",
        spec=modelhost.ModelSource(source=Model.SOURCE_ENDPOINT, endpoint_base_url=server.base_url, endpoint_model="m"),
    )
    Model.objects.filter(pk=model.pk).update(preflight_status=Model.PREFLIGHT_PASSED)
    submission = submissions.submission_create_for_model(
        owner=user,
        model=Model.objects.get(pk=model.pk),
        benchmarks=[benchmark],
        generation_settings={"n": 1, "max_tokens": 64},
    )
    return submission, EvaluationRun.objects.get(submission=submission)


def on(problem: str, request: dict) -> bool:
    return f"Problem {problem}" in json.dumps(request["messages"])


def test_a_refused_request_is_a_bad_answer_and_the_job_goes_on(multi_lcb, user):
    def handler(request: dict) -> Reply:
        if on("t1_a", request):
            return Reply(status=400, error="This model's maximum context length is 8 tokens")
        return python_solver(request)

    with OpenAIServer(handler) as server:
        submission, run = submit(user, multi_lcb, server)
        assert generation_execute(job_id=submission.generation.pk).startswith("succeeded")
    run.refresh_from_db()
    assert run.phase == "scoring" and run.status == RunStatus.QUEUED, (run.failure_kind, run.failure_message)
    refused = GeneratedOutput.objects.filter(run=run, item_id__startswith="t1_a/")
    assert refused.count() == 12 and all(o.output == "" and "HTTP 400" in o.error for o in refused)
    assert GeneratedOutput.objects.filter(run=run).count() == 36


def test_one_slow_request_is_a_bad_answer_but_many_mean_a_hung_server(multi_lcb, user, settings):
    settings.GENERATION_REQUEST_TIMEOUT, settings.GENERATION_MAX_TIMEOUTS = 0.5, 3

    def handler(request: dict) -> Reply:
        reply = python_solver(request)
        if on("t3_a", request):
            reply.delay_s = 3.0
        return reply

    with OpenAIServer(handler) as server:
        submission, run = submit(user, multi_lcb, server)
        outcome = generation_execute(job_id=submission.generation.pk)
    run.refresh_from_db()
    # t3_a's twelve requests all time out: past the third the job fails as a timeout
    assert outcome == "failed: timeout" and run.status == RunStatus.FAILED and run.failure_kind == FailureKind.TIMEOUT
    assert "no answer within 0.5 s" in run.failure_message


def test_a_single_timeout_alone_does_not_fail_the_job(multi_lcb, user, settings):
    settings.GENERATION_REQUEST_TIMEOUT, settings.GENERATION_MAX_TIMEOUTS = 0.5, 3
    slow_seen: list[str] = []

    def handler(request: dict) -> Reply:
        reply = python_solver(request)
        if on("t2_a", request) and not slow_seen:
            slow_seen.append("yes")
            reply.delay_s = 3.0
        return reply

    with OpenAIServer(handler) as server:
        submission, run = submit(user, multi_lcb, server)
        assert generation_execute(job_id=submission.generation.pk).startswith("succeeded")
    timed_out = GeneratedOutput.objects.filter(run=run, error__startswith="timeout")
    assert timed_out.count() == 1 and timed_out.get().item_id.startswith("t2_a/")


def test_the_job_enforces_its_own_time_limit(multi_lcb, user, settings):
    settings.GENERATION_TIME_LIMIT, settings.GENERATION_CONCURRENCY = 1.0, 1

    def slow(request: dict) -> Reply:
        reply = python_solver(request)
        reply.delay_s = 0.3
        return reply

    with OpenAIServer(slow) as server:
        submission, run = submit(user, multi_lcb, server)
        assert generation_execute(job_id=submission.generation.pk) == "failed: timeout"
        sent = server.request_count
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.failure_kind == FailureKind.TIMEOUT
    assert "time limit of 1 s" in run.failure_message and sent < 36
