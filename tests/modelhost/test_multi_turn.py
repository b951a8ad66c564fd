"""Multi-turn generation: an evaluator's follow_up turns fed into the same stream of requests, every
stage stored with what it added to the conversation and the tool run that made it, the transcript in
the predictions file that reaches scoring (with error kinds), and a worker killed between the two
stages resuming without asking the first stage again. The two-turn evaluator of
tests.support.turns_evaluator over the Multi-LCB mini release, against the scripted model server."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
from collections import Counter

import pytest
from django.core.files.storage import default_storage
from django.test import Client

from evaluators.core import registry
from evaluators.core.files import parse_predictions
from leaderboard.catalog.models import Model
from leaderboard.chains.execution import run_execute
from leaderboard.modelhost import services as modelhost
from leaderboard.runs import services as submissions
from leaderboard.runs.generation.worker import generation_execute
from leaderboard.runs.models import EvaluationRun, GeneratedOutput, GenerationJob, ItemResult, RunStatus
from tests.conftest import Worker, wait_for
from tests.modelhost.conftest import python_solver
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.turns_evaluator import DOTTED_PATH, FOLLOW_UP_MARK

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]
ORIGINAL = "evaluators.multi_lcb.evaluator:MultiLCBEvaluator"


@pytest.fixture
def two_turns():
    registry.register("multi-lcb", DOTTED_PATH)
    yield
    registry.register("multi-lcb", ORIGINAL)


def stage_of(request: dict) -> int:
    return 1 if FOLLOW_UP_MARK in json.dumps(request["messages"]) else 0


def submit(user, benchmark, server: OpenAIServer, name: str = "turns"):
    model = modelhost.model_register(
        owner=user,
        name=name,
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


def generated_predictions(run: EvaluationRun):
    run.refresh_from_db()
    with default_storage.open(run.predictions_key) as handle:
        data = handle.read()
    items = set(GeneratedOutput.objects.filter(run=run).values_list("item_id", flat=True))
    return parse_predictions(data, items)


def test_each_stage_is_stored_with_its_tool_run_and_the_transcript_reaches_scoring(two_turns, multi_lcb, user):
    def handler(request: dict) -> Reply:
        if stage_of(request) == 0:
            if "t1_a" in json.dumps(request["messages"]):
                return Reply(text="a first answer cut off", finish_reason="length")
            return Reply(text="a first answer")
        return python_solver(request)

    with OpenAIServer(handler) as server:
        submission, run = submit(user, multi_lcb, server)
        assert generation_execute(job_id=submission.generation.pk).startswith("succeeded")
        stages = Counter(stage_of(r) for r in server.requests)
    assert stages == {0: 36, 1: 36}  # every item: one first request, one follow-up
    job = GenerationJob.objects.get(pk=submission.generation.pk)
    assert job.requests_done == job.requests_total == 72  # progress counts stages
    first = GeneratedOutput.objects.get(run=run, item_id="t2_a/python", stage=0)
    second = GeneratedOutput.objects.get(run=run, item_id="t2_a/python", stage=1)
    assert first.messages and first.messages[-1]["role"] == "user" and first.tool == {}
    assert second.tool == {"name": "length", "output": str(len("a first answer")), "error_kind": ""}
    assert second.messages == [{"role": "user", "content": f"{FOLLOW_UP_MARK} 14 characters. Give your final answer."}]
    cut = GeneratedOutput.objects.get(run=run, item_id="t1_a/python", stage=0)
    assert cut.error_kind == "cut_off" and cut.output == "a first answer cut off"  # its text is kept

    predictions = {p.item_id: p for p in generated_predictions(run)}
    assert len(predictions) == 36
    python = predictions["t2_a/python"]
    assert (
        len(python.transcript) == 2 and python.output == python.transcript[-1].answer and "```python" in python.output
    )
    assert python.transcript[0].answer == "a first answer" and python.transcript[1].tool["name"] == "length"
    assert predictions["t1_a/python"].transcript[0].error_kind == "cut_off"
    assert predictions["t1_a/python"].transcript[1].tool["error_kind"] == "cut_off"  # the evaluator saw the kind
    # the follow-up request carried the whole conversation
    follow = next(r for r in server.requests if stage_of(r) == 1 and "t2_a" in json.dumps(r["messages"]))
    assert [m["role"] for m in follow["messages"]][-3:] == ["user", "assistant", "user"]
    assert follow["messages"][-2]["content"] == "a first answer"

    # scored (in-process, as a worker does): the per-item page shows every stage of the conversation
    assert run_execute(run_id=run.pk).startswith("succeeded"), EvaluationRun.objects.get(pk=run.pk).log
    result = ItemResult.objects.get(run=run, item_id="t2_a/python")
    assert result.scores["pass@1"] == 1.0 and [len(t["stages"]) for t in result.detail["transcripts"]] == [2]
    client = Client()
    client.force_login(user)
    page = client.get(f"/runs/{run.pk}/items/?page=1").content.decode()
    assert "Conversation" in page and "Stage 1" in page and f"{FOLLOW_UP_MARK} 14 characters" in page
    assert "cut_off" in page  # t1_a's first stage, cut off, says so


def test_a_worker_killed_between_the_stages_resumes_without_asking_the_first_stage_again(
    two_turns, multi_lcb, user, worker_env, tmp_path
):
    asked: Counter[tuple[str, int]] = Counter()
    lock = threading.Lock()
    release = threading.Event()

    def handler(request: dict) -> Reply:
        stage = stage_of(request)
        key = (json.dumps(request["messages"][:2]), stage)  # the first request's messages name the item
        with lock:
            asked[key] += 1
        if stage == 1 and not release.is_set():
            release.wait(120)  # the first worker dies while waiting for this answer
        return Reply(text="first") if stage == 0 else python_solver(request)

    env = {
        **worker_env,
        "LEADERBOARD_EXTRA_EVALUATORS": json.dumps({"multi-lcb": DOTTED_PATH}),
        "LEADERBOARD_GENERATION_CONCURRENCY": "1",
    }
    with OpenAIServer(handler) as server:
        submission, run = submit(user, multi_lcb, server)
        first = Worker(env, tmp_path / "first.log")
        first.start()
        try:
            wait_for(lambda: any(stage == 1 for _, stage in asked), timeout=180, what="the first follow-up")
            wait_for(
                lambda: GeneratedOutput.objects.filter(run=run, stage=0).count() == 36,
                timeout=60,
                what="every first stage stored",
            )
        finally:
            assert first.proc is not None
            os.killpg(first.proc.pid, signal.SIGKILL)
            first.proc.wait()
        release.set()
        stored_first = GeneratedOutput.objects.filter(run=run, stage=0).count()
        assert GeneratedOutput.objects.filter(run=run, stage=1).count() == 0
        second = Worker(env, tmp_path / "second.log")
        second.start()
        try:
            wait_for(lambda: EvaluationRun.objects.get(pk=run.pk).is_finished, timeout=300, what="the resumed run")
        finally:
            second.stop()
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log)
    assert stored_first == 36
    firsts = [count for (_, stage), count in asked.items() if stage == 0]
    assert len(firsts) == 36 and set(firsts) == {1}, "a first stage was asked twice"
    assert GeneratedOutput.objects.filter(run=run, stage=1).count() == 36
    assert all(len(p.transcript) == 2 for p in generated_predictions(run))
    assert GenerationJob.objects.get(submission=submission).attempt >= 2


def test_a_predictions_file_without_transcripts_is_refused_where_the_protocol_is_a_conversation(
    two_turns, multi_lcb, user
):
    items = list(multi_lcb.dataset_versions.get(is_current=True).item_ids)
    bare = "".join(json.dumps({"item_id": i, "output": "print(1)"}) + "\n" for i in items).encode()
    with pytest.raises(
        submissions.SubmissionRefused, match=re.escape("conversation with the platform's tool. 36 line")
    ):
        submissions.submission_create_from_predictions(owner=user, benchmark=multi_lcb, model_name="bare", data=bare)
    stage = {"messages": [{"role": "user", "content": "q"}], "answer": "print(1)"}
    carried = "".join(
        json.dumps({"item_id": i, "output": "print(1)", "transcript": [stage]}) + "\n" for i in items
    ).encode()
    submission = submissions.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="carried", data=carried
    )
    assert submission.predictions_count == 36
