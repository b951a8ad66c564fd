"""PoliCon from submission to leaderboard: the sample imported with its real-vote diagnostic, the Random
and Greedy baselines scored as reference rows, a user's predictions scored by the real Celery worker
with the scripted OpenAI-compatible server as the judge (configured through LEADERBOARD_JUDGES),
every judge call stored and shown, and a judge outage in the middle of a run retried to the very
scores of an undisturbed run, with no fallback counted."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluators.core import evaluator_for
from evaluators.core.types import Prediction
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import FALLBACK_METRIC, Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from leaderboard.runs.models import EvaluationRun, ItemResult, RunStatus, Score
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for
from tests.policon.test_scoring import party_of
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.validation import record_passing_validation

JUDGE = {"name": "scripted-judge", "revision": "2026-12-01", "prompt_version": "v1", "model": "judge"}
LABEL = "scripted-judge@2026-12-01 (prompt v1)"
EVALUATOR = evaluator_for("policon")
ITEMS = list(EVALUATOR.import_release(EVALUATOR.presentation().sample_dataset()))
CALLS_PER_MODEL = sum(len(item.payload["parties"]) for item in ITEMS)


def vote_of(request: dict[str, Any]) -> str:
    """The judge: a digit fixed by the party and the resolution, so every score can be recomputed."""
    prompt = request["messages"][-1]["content"]
    resolution = prompt.split("Draft resolution:\n", 1)[1].split("\n\nParty:", 1)[0]
    return str((len(party_of(request)) * 7 + len(resolution)) % 10)


class SwitchableJudge:
    """The scripted judge, which can be taken down (HTTP 503 to every call) and brought back; with
    ``down_after`` it goes down by itself once it has answered that many calls (mid-run, however fast
    the run is: a test that waited for a count and then took it down raced the run's last calls)."""

    def __init__(self) -> None:
        self.down = threading.Event()
        self.refused = 0
        self.answered = 0
        self.down_after: int | None = None
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            if self.down_after is not None and self.answered >= self.down_after:
                self.down.set()
            if self.down.is_set():
                self.refused += 1
                return Reply(status=503, error={"message": "judge overloaded"})
            self.answered += 1
        return Reply(text=vote_of(request), usage=(120, 1))


@pytest.fixture
def judge() -> SwitchableJudge:
    return SwitchableJudge()


@pytest.fixture
def judge_server(judge: SwitchableJudge) -> Iterator[OpenAIServer]:
    with OpenAIServer(judge) as server:
        yield server


@pytest.fixture
def worker_env(worker_env: dict[str, str], judge_server: OpenAIServer) -> dict[str, str]:
    return {
        **worker_env,
        "LEADERBOARD_JUDGES": json.dumps({"policon": {**JUDGE, "base_url": judge_server.base_url}}),
        "LEADERBOARD_JUDGE_CONCURRENCY": "4",
    }


@pytest.fixture
def policon(db):
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug="policon")
    dataset_version_import(benchmark=benchmark, release_path=EVALUATOR.presentation().sample_dataset(), tag="sample")
    # the scripted judge counts as validated (under the prompt PoliCon asks, v2): its board ranks
    record_passing_validation("policon", "scripted-judge@2026-12-01 (prompt policon-support@v2)")
    return benchmark


def answers(model: str) -> dict[str, str]:
    return {
        item.id: f"The European Parliament raised ({model}) a plan for {item.payload['title'].lower()}."
        for item in ITEMS
    }


def submit(client, model: str) -> int:
    data = "".join(json.dumps({"item_id": i, "output": o}) + "\n" for i, o in answers(model).items()).encode()
    upload = SimpleUploadedFile("predictions.jsonl", data, content_type="application/jsonl")
    response = client.post(
        "/api/submissions/", {"benchmark": "policon", "model_name": model, "predictions": upload}, format="multipart"
    )
    assert response.status_code == 201, response.content
    return EvaluationRun.objects.get(submission_id=response.json()["id"]).pk


def expected_scores(server: OpenAIServer, model: str) -> dict[str, dict[str, float]]:
    """Every item scored in-process by the evaluator with the same judge: what the worker must store."""
    judge = Judge(
        JudgeSpec("judge", "r", "v1"), ChatClient(Endpoint(server.base_url, "judge"), max_concurrency=4), concurrency=4
    )
    evaluator = EVALUATOR.with_judge(judge)
    return {i.id: evaluator.score_item(i, [Prediction(i.id, answers(model)[i.id])]).scores for i in ITEMS}


def finished(run_ids: list[int]) -> bool:
    return (
        not EvaluationRun.objects.filter(pk__in=run_ids)
        .exclude(status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED])
        .exists()
    )


@pytest.mark.django_db(transaction=True)
def test_policon_from_submission_to_leaderboard_with_baselines_and_every_judge_call(
    policon, user, judge_server, celery_worker, client
):
    from leaderboard.runs.services import baselines_submit

    baselines = baselines_submit(benchmark=policon)
    assert sorted(s.model.name for s in baselines) == ["Greedy (baseline)", "Random (baseline)"]
    assert baselines_submit(benchmark=policon) == []  # once per dataset version
    run_id = submit(api_for(user), "drafter-1")
    run_ids = [run_id] + [s.runs.get().pk for s in baselines]
    wait_for(lambda: finished(run_ids), timeout=240, what="the three PoliCon runs")
    for run in EvaluationRun.objects.filter(pk__in=run_ids):
        assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log)
        assert run.environment["judge"]["label"] == LABEL
    assert judge_server.request_count == 3 * CALLS_PER_MODEL  # one call per party, item and model; none repeated

    stored = {r.item_id: r for r in ItemResult.objects.filter(run_id=run_id)}
    assert {i: r.scores for i, r in stored.items()} == expected_scores(judge_server, "drafter-1")
    batch = stored["4/digital-privacy-data-markets/1/veto"].detail["judgements"][0]
    assert batch["judge"]["label"] == LABEL and batch["shared"]["resolution"].startswith(
        "The European Parliament raised (drafter-1)"
    )
    assert len(batch["calls"]) == 4 and all(c["error_kind"] == "" for c in batch["calls"])
    assert Score.objects.get(run_id=run_id, key=FALLBACK_METRIC, slice_key="").value == 0.0
    assert Score.objects.filter(run_id=run_id, key="sm_pass", slice_key="parties=6").exists()

    board = client.get("/api/benchmarks/policon/leaderboard/").json()
    rows = {row["model"]: row for row in board["rows"]}
    assert rows["drafter-1"]["rank"] == 1 and not rows["drafter-1"]["is_reference"]
    for name in ("Random (baseline)", "Greedy (baseline)"):
        assert (
            rows[name]["is_reference"]
            and rows[name]["rank"] is None
            and "reference row" in rows[name]["unranked_reason"]
        )
    assert board["judges"] == [LABEL]

    policon.refresh_from_db()
    assert (
        policon.slice_dimensions[1]["key"] == "topic" and len(policon.slice_dimensions[1]["values"]) == 4
    )  # from the dataset
    by_topic = client.get("/api/benchmarks/policon/leaderboard/", {"topic": "Rail, roads & cycling"}).json()
    assert by_topic["slice"] == "topic=Rail, roads & cycling"
    rail = {row["model"]: row for row in by_topic["rows"]}["drafter-1"]["scores"]["sm_pass|topic=Rail, roads & cycling"]
    assert (
        rail["n"] == 4
        and rail["value"]
        == Score.objects.get(run_id=run_id, key="sm_pass", slice_key="topic=Rail, roads & cycling").value
    )
    page = client.get("/benchmarks/policon/").content.decode()
    assert "SM pass" in page and "Judge fallbacks" in page and f"Judge: <strong>{LABEL}</strong>" in page
    assert "baseline</span>" in page and "not available yet" not in page
    assert "The rules on the real votes (a diagnostic, not a check) · dataset sample" in page  # DatasetVersion.notes
    assert "4.999999999999999" in page  # the float deviation of the released code, stated
    items_page = client.get(f"/runs/{run_id}/items/").content.decode()
    assert (
        "prompt policon-support@v2" in items_page and "Harbour Alliance" in items_page
    )  # the released rubric by default


@pytest.mark.django_db(transaction=True)
def test_a_judge_outage_mid_run_is_retried_to_the_scores_of_an_undisturbed_run(
    policon, user, judge, judge_server, celery_worker
):
    judge.down_after = 40  # the judge goes down mid-run, for longer than the client's own retries
    run_id = submit(api_for(user), "drafter-2")
    # the run itself says when it gives the attempt up; how long that takes depends on the client's
    # backoff and the machine's load, so the wait is for that state, with room to spare
    wait_for(
        lambda: "will retry" in EvaluationRun.objects.get(pk=run_id).log,
        timeout=300,
        what="the run to give up this attempt",
    )
    judge.down_after = None
    judge.down.clear()
    wait_for(lambda: finished([run_id]), timeout=240, what="the retried run")
    run = EvaluationRun.objects.get(pk=run_id)
    assert run.status == RunStatus.SUCCEEDED and run.attempt >= 2, (run.status, run.log)
    assert judge.refused > 0 and "unavailable" in run.log
    stored = {r.item_id: r.scores for r in ItemResult.objects.filter(run_id=run_id)}
    assert stored == expected_scores(judge_server, "drafter-2")  # as if nothing had happened
    assert Score.objects.get(run_id=run_id, key=FALLBACK_METRIC, slice_key="").value == 0.0
    assert all(
        c["error_kind"] == ""
        for r in ItemResult.objects.filter(run_id=run_id)
        for b in r.detail["judgements"]
        for c in b["calls"]
    )
