"""Video NIAH through the site: the sample imported for both leaderboards (every frame in the media store
on moto's S3 server), the tiny vision model served by `transformers serve` answering the whole grid (up
to 64 frames a request) from one submission to both leaderboards, with the depth x N heatmap and the
accuracy-against-N lines on the leaderboard rows and the run page; and a hosted model that refuses
requests over 20 images (vLLM's own wording) whose 32-frame cells read "over limit" and count as misses on
the whole grid."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings

from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.runs.models import EvaluationRun, GenerationJob, ItemResult, RunStatus, Score
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for, gpu_worker, register, submit_model  # noqa: F401 - a fixture
from tests.modelhost.test_weights import PART, all_finished
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.vision import upload_vision_model

pytestmark = pytest.mark.django_db(transaction=True)
SLUGS = ("video-niah-single", "video-niah-multi")


def import_both() -> dict[str, Benchmark]:
    from evaluators.core import evaluator_for
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks_sync()
    benchmarks = {slug: Benchmark.objects.get(slug=slug) for slug in SLUGS}
    for benchmark in benchmarks.values():
        dataset_version_import(
            benchmark=benchmark,
            release_path=evaluator_for(benchmark.evaluator_key).presentation().sample_dataset(),
            tag="sample",
        )
    return benchmarks


@pytest.fixture
def worker_env(worker_env: dict[str, str]) -> dict[str, str]:
    return {**worker_env, "LEADERBOARD_GENERATION_CONCURRENCY": "2", "LEADERBOARD_ALLOW_PRIVATE_ENDPOINTS": "1"}


@override_settings(UPLOAD_PART_BYTES=PART)
def test_the_tiny_vision_model_answers_the_grid_on_both_leaderboards(user, tmp_path, celery_worker, gpu_worker, client):
    benchmarks = import_both()
    single = DatasetVersion.objects.get(benchmark=benchmarks["video-niah-single"])
    assert single.item_count == 36 and single.media_count == 64 + 3 + 1  # the frames, the needles, the manifest
    model = upload_vision_model(api_for(user), tmp_path)
    response = submit_model(api_for(user), model.slug, list(SLUGS), {"n": 1, "max_tokens": 4, "temperature": 0.0})
    assert response.status_code == 201, response.content
    submission_id = response.json()["id"]
    wait_for(lambda: all_finished(submission_id), timeout=420, what="generation of the grid and scoring")
    job = GenerationJob.objects.get(submission_id=submission_id)
    assert job.requests_done == job.requests_total == 36 + 12, job.log
    for slug in SLUGS:
        run = EvaluationRun.objects.get(submission_id=submission_id, benchmark__slug=slug)
        assert run.status == RunStatus.SUCCEEDED, (slug, run.failure_kind, run.failure_message, run.log, job.log)
        generation = run.environment["generation"]
        assert (
            generation["server"] == "transformers" and generation["server_options"]["images_per_prompt"] == 64 + 7
        )  # N = 64 and a chain of 7
        assert run.environment["mode"] == "images"  # how the frames were sent, recorded with the run
        assert Score.objects.filter(run=run, key="accuracy", slice_key="").exists()
        assert not ItemResult.objects.filter(run=run, scores__has_key="over_limit", scores__over_limit=1.0).exists()
    single_run = EvaluationRun.objects.get(submission_id=submission_id, benchmark__slug="video-niah-single")
    assert Score.objects.filter(
        run=single_run, key="accuracy", slice_key="depth=50,frames=32"
    ).exists()  # a heatmap cell
    assert Score.objects.filter(run=single_run, key="frames_at_90", slice_key="").exists()

    page = client.get("/benchmarks/video-niah-single/").content.decode()
    assert (
        '<details class="heatmap"><summary>Accuracy (over the limit = miss): depth (%) × frames (n)</summary>' in page
    )
    assert (
        '<th scope="col">4</th><th scope="col">8</th><th scope="col">16</th><th scope="col">32</th>' in page
    )  # numeric order
    multi = client.get("/benchmarks/video-niah-multi/").content.decode()
    assert '<svg class="lines-chart"' in multi and "<polyline" in multi and '<th scope="col">64</th>' in multi
    run_page = client.get(f"/submissions/{submission_id}/").content.decode()
    assert '<details class="heatmap" open>' in run_page and '<details class="lines" open>' in run_page
    assert "Largest N at 0.9" in run_page and "Share of the grid answered" in run_page


def limited_vision_api(request: dict[str, Any]) -> Reply:
    """A hosted vision model that takes at most 20 images a prompt and refuses more in vLLM's words; it
    answers B to a multiple-choice question and 7 otherwise."""
    parts = request["messages"][-1]["content"]
    if isinstance(parts, str):  # the pre-flight's plain question
        return Reply(text="ok")
    images = sum(part.get("type") == "image_url" for part in parts)
    if images > 20:  # N = 16 sends 17 frames, N = 32 sends 33
        return Reply(
            status=400,
            error={
                "message": "At most 20 image(s) may be provided in one prompt.",
                "type": "BadRequestError",
                "code": 400,
            },
        )
    text = next(part["text"] for part in parts if part.get("type") == "text")
    return Reply(text="B" if "A, B, C or D" in text else "7")


def test_cells_over_a_models_limit_read_over_limit_not_wrong(user, celery_worker, client):
    import_both()
    api = api_for(user)
    with OpenAIServer(limited_vision_api) as server:
        model = register(
            api,
            name="hosted-vision",
            source="endpoint",
            endpoint_base_url=server.base_url,
            endpoint_model="test-model",
            modality="image",
        )
        wait_for(
            lambda: api.get(f"/api/models/{model['slug']}/").json()["preflight_status"] != "pending",
            timeout=60,
            what="the endpoint's pre-flight",
        )
        response = submit_model(api, model["slug"], ["video-niah-single"])
        assert response.status_code == 201, response.content
        submission_id = response.json()["id"]
        wait_for(lambda: all_finished(submission_id), timeout=240, what="generation and scoring")
    run = EvaluationRun.objects.get(submission_id=submission_id)
    assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log)
    over = ItemResult.objects.filter(run=run, item_id__contains="/32/")
    assert over.count() == 9 and all(r.scores == {"over_limit": 1.0} for r in over)
    assert all("may be provided in one prompt" in r.detail["over_limit"] for r in over)
    scores = {s.slice_key: s.value for s in Score.objects.filter(run=run, key="over_limit")}
    assert scores["frames=32"] == 1.0 and scores["frames=16"] == 0.0 and scores[""] == pytest.approx(9 / 36)
    # the needle answered "7" and the shape question "B" are right; the colour question is wrong everywhere
    accuracy = {s.slice_key: s.value for s in Score.objects.filter(run=run, key="accuracy")}
    assert accuracy["frames=16"] == pytest.approx(2 / 3) and "frames=32" not in accuracy
    # on the whole grid the 9 refused questions are misses: 6 right at each of N = 4, 8 and 16, of 36
    assert accuracy[""] == pytest.approx(18 / 36)
    assert Score.objects.get(run=run, key="answered", slice_key="").value == pytest.approx(27 / 36)
    assert Score.objects.get(run=run, key="largest_answered", slice_key="").value == 16.0
    page = client.get("/benchmarks/video-niah-single/").content.decode()
    assert page.count('<td class="over">over limit</td>') == 3  # the 32-frame column at depths 0, 50 and 100


@override_settings(EVALUATOR_SETTINGS=json.dumps({"video-niah-single": {"mode": "video"}}))
def test_the_video_mode_is_stated_on_the_page_and_needs_a_video_model(user, client):
    import_both()
    page = client.get("/benchmarks/video-niah-single/").content.decode()
    assert (
        "This site sends the frames as one MP4 video per request, every frame kept" in page and "(mode video)" in page
    )
    assert "(mode images)" in client.get("/benchmarks/video-niah-multi/").content.decode()
    api = api_for(user)
    model = register(
        api,
        name="image-only",
        source="endpoint",
        endpoint_base_url="http://127.0.0.1:9/v1",
        endpoint_model="m",
        modality="image",
    )
    from leaderboard.catalog.models import Model

    Model.objects.filter(slug=model["slug"]).update(preflight_status=Model.PREFLIGHT_PASSED)
    refused = submit_model(api, model["slug"], ["video-niah-single"])
    assert (
        refused.status_code == 400
        and "sends video input, and image-only is registered as an image model" in refused.content.decode()
    )
    assert (
        submit_model(api, model["slug"], ["video-niah-multi"]).status_code == 201
    )  # images mode: an image model enters
