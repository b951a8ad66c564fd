"""CausalPitfalls from submission to both leaderboards: a model behind a scripted OpenAI-compatible
server, registered as an endpoint, submitted to the direct and the code-assisted benchmarks at once;
the real Celery worker generates both (the code-assisted items in two turns, the model's programs run
on the datasets in the data sandbox between them) and scores them with a scripted rubric judge; each
stage's transcript is on the per-item page, both leaderboards rank the model, a predictions file
without transcripts is refused for the code-assisted one."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluators.causal_pitfalls.card import ERROR_RATE
from evaluators.causal_pitfalls.evaluator import CODE_FAILURE, RELIABILITY
from evaluators.core import evaluator_for
from leaderboard.catalog.models import Model
from leaderboard.runs.models import EvaluationRun, GeneratedOutput, ItemResult, RunStatus, Score
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for, register, submit_model
from tests.modelhost.test_endpoint import all_finished, preflighted
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.validation import record_passing_validation

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]
JUDGE = {"name": "rubric-judge", "revision": "2026-12-01", "prompt_version": "v1", "model": "judge"}
#: its validation's label: the prompt the evaluator asks (v2), not the setting's prompt_version
VALIDATED = "rubric-judge@2026-12-01 (prompt causal-pitfalls-rubric@v2)"
DIRECT = evaluator_for("causal-pitfalls")


def model_reply(request: dict[str, Any]) -> Reply:
    """The scripted model: direct answers in words; code-assisted, a program that counts the rows (none for
    Berkson's datasets, to make code failures), then a final answer quoting what the program printed."""
    prompt = request["messages"][-1]["content"]
    if "Analyse the data directly" in prompt:
        return Reply(text="Adjusted for the confounder, the effect is positive.")
    if "Write one Python program" in prompt:
        csv = re.search(r"/data/(\S+\.csv)", prompt).group(1)
        if csv.startswith("berkson"):
            return Reply(text="I would compare correlations, but I will not write code.")
        return Reply(text=f"```python\nimport pandas as pd\nprint('rows', len(pd.read_csv('/data/{csv}')))\n```")
    printed = re.search(r"Results:\n(.*)", prompt)
    return Reply(
        text=f"Final answer: adjusted, positive (my program said: {printed.group(1) if printed else 'nothing ran'})."
    )


def judge_reply(request: dict[str, Any]) -> Reply:
    """The scripted judge: every criterion met when the answer quotes a program's output, the first one otherwise."""
    content = request["messages"][-1]["content"]
    count = int(re.search(r"exactly (\d+) of them", content).group(1))
    scores = [1] * count if "my program said: rows" in content else [1] + [0] * (count - 1)
    return Reply(text=json.dumps({"scores": scores}))


@pytest.fixture
def judge_server():
    with OpenAIServer(judge_reply) as server:
        yield server


@pytest.fixture
def worker_env(worker_env: dict[str, str], judge_server: OpenAIServer) -> dict[str, str]:
    return {
        **worker_env,
        "LEADERBOARD_JUDGES": json.dumps({"causal-pitfalls": {**JUDGE, "base_url": judge_server.base_url}}),
        "LEADERBOARD_GENERATION_CONCURRENCY": "8",
    }


@pytest.fixture
def benchmarks(db):
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks_sync()
    found = []
    for slug in ("causal-pitfalls", "causal-pitfalls-code"):
        benchmark = Benchmark.objects.get(slug=slug)
        dataset_version_import(benchmark=benchmark, release_path=DIRECT.presentation().sample_dataset(), tag="sample")
        record_passing_validation(slug, VALIDATED)  # the scripted judge counts as validated: its board ranks
        found.append(benchmark)
    return found


def test_both_protocols_from_submission_to_leaderboard_with_transcripts(
    benchmarks, user, judge_server, celery_worker, client
):
    api = api_for(user)
    with OpenAIServer(model_reply) as server:
        model = register(
            api, name="analyst-1", source="endpoint", endpoint_base_url=server.base_url, endpoint_model="test-model"
        )
        assert preflighted(model["slug"]) == Model.PREFLIGHT_PASSED, Model.objects.get(
            slug=model["slug"]
        ).preflight_report
        response = submit_model(api, model["slug"], [b.slug for b in benchmarks], {"n": 1, "max_tokens": 256})
        assert response.status_code == 201, response.content
        submission_id = response.json()["id"]
        wait_for(lambda: all_finished(submission_id), timeout=420, what="generation of both protocols and scoring")
        stages = [
            (
                "Write one Python program" in r["messages"][-1]["content"],
                len(r["messages"]) == 1 and "Results:" in r["messages"][0]["content"],
            )  # the fresh final prompt
            for r in server.requests
            if r["messages"]
        ]
    runs = {
        run.benchmark.slug: run
        for run in EvaluationRun.objects.filter(submission_id=submission_id).select_related("benchmark")
    }
    for run in runs.values():
        assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log)
        assert run.environment["judge"]["name"] == "rubric-judge"
    code_run, direct_run = runs["causal-pitfalls-code"], runs["causal-pitfalls"]
    assert (
        sum(first for first, _ in stages) == 100 and sum(second for _, second in stages) == 100
    )  # two turns each, once
    assert GeneratedOutput.objects.filter(run=code_run, stage=1).count() == 100
    assert GeneratedOutput.objects.filter(run=direct_run).exclude(stage=0).count() == 0  # one turn

    # the code-assisted protocol: programs ran in the sandbox (Berkson's items had none: code failures)
    ran = GeneratedOutput.objects.get(run=code_run, item_id="simpson_paradox/simpson_paradox_scenario/hard", stage=1)
    assert ran.tool["status"] == "ok" and ran.tool["output"].strip() == "rows 800"
    assert "my program said: rows 800" in ran.output
    score = lambda run, key, slice_key="": Score.objects.get(run=run, key=key, slice_key=slice_key).value  # noqa: E731
    assert score(code_run, CODE_FAILURE) == pytest.approx(0.25)  # 25 of 100 items without a program
    # confounding: Simpson 1, Berkson 1/4 (one criterion of four) -> 0.625; mediation 1; external validity 1
    assert score(code_run, RELIABILITY) == pytest.approx((0.625 + 1 + 1) / 3)
    assert score(direct_run, RELIABILITY) == pytest.approx((0.2 + 0.25) / 2 / 3 + 0.25 / 3 + 0.25 / 3)
    assert score(code_run, RELIABILITY, "category=confounding") == pytest.approx(0.625)

    for slug in ("causal-pitfalls", "causal-pitfalls-code"):
        board = client.get(f"/api/benchmarks/{slug}/leaderboard/").json()
        assert [row["model"] for row in board["rows"]] == ["analyst-1"] and board["rows"][0]["rank"] == 1
    page = client.get("/benchmarks/causal-pitfalls-code/").content.decode()
    assert "Causal reliability" in page and "Sandbox failures" in page and "Code-assisted protocol" in page
    assert "Error rate (paper&#x27;s rule)" in page or "Error rate (paper's rule)" in page
    assert score(code_run, ERROR_RATE) == 0.0  # no final answer says error, exception, failed or traceback
    result = ItemResult.objects.get(run=code_run, item_id="simpson_paradox/simpson_paradox_scenario/hard")
    assert [len(t["stages"]) for t in result.detail["transcripts"]] == [2]
    client.force_login(user)
    items = client.get(f"/runs/{code_run.pk}/items/?page=1").content.decode()
    assert "Conversation" in items and "Code run:" in items and "prompt causal-pitfalls-rubric@v2" in items


def test_a_predictions_file_without_transcripts_is_refused_for_the_code_assisted_protocol(benchmarks, user):
    items = [item.id for item in DIRECT.import_release(DIRECT.presentation().sample_dataset())]
    data = "".join(json.dumps({"item_id": i, "output": "positive"}) + "\n" for i in items).encode()
    upload = SimpleUploadedFile("predictions.jsonl", data, content_type="application/jsonl")
    response = api_for(user).post(
        "/api/submissions/",
        {"benchmark": "causal-pitfalls-code", "model_name": "offline", "predictions": upload},
        format="multipart",
    )
    assert response.status_code == 400 and "conversation with the platform" in response.content.decode(), (
        response.content
    )
    upload = SimpleUploadedFile("predictions.jsonl", data, content_type="application/jsonl")
    direct = api_for(user).post(
        "/api/submissions/",
        {"benchmark": "causal-pitfalls", "model_name": "offline", "predictions": upload},
        format="multipart",
    )
    assert direct.status_code == 201, direct.content
