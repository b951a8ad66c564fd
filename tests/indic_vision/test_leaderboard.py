"""IndicVisionBench through the site: a release imported with its images in the media store (S3 on moto's
server) once by content hash, and nothing left behind when an import fails; a text-only model refused
with a message that says what to do; and the tiny vision model, uploaded as weights and served by
`transformers serve` on the GPU queue's worker, answering real image requests from one submission to
all three leaderboards, with the scripted judge grading the VQA answers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from evaluators.core.types import DatasetError
from evaluators.indic_vision.evaluator import IndicVisionOCREvaluator
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.runs.models import EvaluationRun, GeneratedOutput, GenerationJob, ItemResult, RunStatus, Score
from tests.conftest import wait_for
from tests.indic_vision.test_scoring import grader
from tests.modelhost.conftest import api_for, gpu_worker, register, submit_model  # noqa: F401 - a fixture
from tests.modelhost.test_weights import PART, all_finished
from tests.support.openai_server import OpenAIServer
from tests.support.vision import upload_vision_model

pytestmark = pytest.mark.django_db(transaction=True)
SAMPLE = Path(__file__).resolve().parents[2] / "evaluators" / "indic_vision" / "data" / "sample"
SLUGS = ("indic-vision-ocr", "indic-vision-mmt", "indic-vision-vqa")
OCR = IndicVisionOCREvaluator()
JUDGE = {"name": "scripted-judge", "revision": "2026-12-01", "prompt_version": "v1", "model": "judge"}


def trimmed_release(tmp_path: Path, languages=("English", "Hindi")) -> Path:
    """The sample, kept to a few languages (a quick end-to-end run), in the released layout."""
    for config in ("ocr", "mmt", "vqa_en", "vqa_parallel"):
        table = pq.read_table(SAMPLE / config / "test-00000-of-00001.parquet")
        if config == "mmt":
            keep = table.select(
                [
                    c
                    for c in table.column_names
                    if c
                    not in {
                        "Bengali",
                        "Gujarati",
                        "Kannada",
                        "Malayalam",
                        "Marathi",
                        "Odia",
                        "Punjabi",
                        "Tamil",
                        "Telugu",
                    }
                ]
            )
        else:
            rows = [r for r in table.to_pylist() if r["language"] in languages]
            keep = table.from_pylist(rows, schema=table.schema)
        (tmp_path / "release" / config).mkdir(parents=True, exist_ok=True)
        pq.write_table(keep, tmp_path / "release" / config / "test-00000-of-00001.parquet")
    return tmp_path / "release"


@pytest.fixture
def judge_server() -> Iterator[OpenAIServer]:
    with OpenAIServer(grader) as server:
        yield server


@pytest.fixture
def worker_env(worker_env: dict[str, str], judge_server: OpenAIServer) -> dict[str, str]:
    return {
        **worker_env,
        "LEADERBOARD_GENERATION_CONCURRENCY": "2",
        "LEADERBOARD_JUDGES": json.dumps({"indic-vision": {**JUDGE, "base_url": judge_server.base_url}}),
    }


def import_all(release: Path) -> dict[str, Benchmark]:
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks_sync()
    benchmarks = {slug: Benchmark.objects.get(slug=slug) for slug in SLUGS}
    for benchmark in benchmarks.values():
        dataset_version_import(benchmark=benchmark, release_path=release, tag="sample")
    return benchmarks


def stored_names(prefix: str) -> list[str]:
    folders, files = default_storage.listdir(prefix)
    return files + [name for folder in folders for name in stored_names(f"{prefix}/{folder}")]


def test_an_import_stores_each_image_once_and_a_failed_import_leaves_nothing(tmp_path):
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks = import_all(SAMPLE)
    vqa = DatasetVersion.objects.get(benchmark=benchmarks["indic-vision-vqa"])
    assert (
        vqa.item_count == 198 and vqa.media_count == 3 and vqa.media_prefix.startswith("media/indic-vision-vqa/sample-")
    )
    names = stored_names(vqa.media_prefix)
    assert len(names) == 3 and all(n.endswith(".jpg") for n in names)
    assert vqa.media_bytes == sum(default_storage.size(f"{vqa.media_prefix}/{n[:2]}/{n}") for n in names)
    assert "A generated sample" in [note["heading"] for note in vqa.notes]
    assert not Benchmark.objects.filter(slug="indic-vision").exists()  # the old placeholder row is gone

    broken = trimmed_release(tmp_path)
    rows = pq.read_table(broken / "vqa_en" / "test-00000-of-00001.parquet").to_pylist()
    rows[-1]["mcq_a"] = "E"  # the last row is bad: the images before it were already stored
    pq.write_table(
        pq.read_table(broken / "vqa_en" / "test-00000-of-00001.parquet").from_pylist(rows),
        broken / "vqa_en" / "test-00000-of-00001.parquet",
    )
    before = default_storage.listdir("media/indic-vision-vqa")[0]
    with pytest.raises(DatasetError, match="row 3, column 'mcq_a'"):
        dataset_version_import(benchmark=benchmarks["indic-vision-vqa"], release_path=broken, tag="broken")
    assert default_storage.listdir("media/indic-vision-vqa")[0] == before  # no media left behind
    assert not DatasetVersion.objects.filter(tag="broken").exists()
    benchmarks_sync()  # a benchmark with data is never removed by a sync


def test_a_text_model_is_refused_from_an_image_benchmark_with_what_to_do(user):
    import_all(SAMPLE)
    client = api_for(user)
    model = register(
        client, name="text-only", source="endpoint", endpoint_base_url="http://127.0.0.1:9/v1", endpoint_model="m"
    )
    Model.objects.filter(slug=model["slug"]).update(
        preflight_status=Model.PREFLIGHT_PASSED
    )  # refused for its modality alone
    response = submit_model(client, model["slug"], ["indic-vision-ocr"])
    assert response.status_code == 400, response.content
    assert (
        "IndicVisionBench OCR sends image input, and text-only is registered as a text model"
        in response.content.decode()
    )
    assert "Register a model that takes image input" in response.content.decode()
    assert not GenerationJob.objects.exists()
    # a predictions file: a model first named by it takes the benchmark's modality; a text model is refused
    ocr = OCR.import_release(SAMPLE)
    data = "".join(json.dumps({"item_id": i.id, "output": i.payload["text"]}) + "\n" for i in ocr).encode()

    def upload(name: str):
        return client.post(
            "/api/submissions/",
            {"benchmark": "indic-vision-ocr", "model_name": name, "predictions": SimpleUploadedFile("p.jsonl", data)},
            format="multipart",
        )

    assert upload("my-ocr-model").status_code == 201 and Model.objects.get(name="my-ocr-model").modality == "image"
    refused = upload("text-only")
    assert refused.status_code == 400 and "registered as a text model" in refused.content.decode()


@override_settings(UPLOAD_PART_BYTES=PART)
def test_the_tiny_vision_model_from_one_submission_to_all_three_leaderboards(
    user, tmp_path, judge_server, celery_worker, gpu_worker, client
):
    benchmarks = import_all(trimmed_release(tmp_path))
    api = api_for(user)
    model = upload_vision_model(api, tmp_path)

    response = submit_model(api, model.slug, list(SLUGS), {"n": 1, "max_tokens": 4, "temperature": 0.0})
    assert response.status_code == 201, response.content
    submission_id = response.json()["id"]
    wait_for(lambda: all_finished(submission_id), timeout=420, what="generation with images and scoring")
    job = GenerationJob.objects.get(submission_id=submission_id)
    assert (
        job.requests_done
        == job.requests_total
        == sum(DatasetVersion.objects.filter(benchmark__slug__in=SLUGS).values_list("item_count", flat=True))
    ), job.log
    for slug in SLUGS:
        run = EvaluationRun.objects.get(submission_id=submission_id, benchmark__slug=slug)
        assert run.status == RunStatus.SUCCEEDED, (slug, run.failure_kind, run.failure_message, run.log, job.log)
        assert GeneratedOutput.objects.filter(run=run).count() == run.dataset_version.item_count
        stored = json.dumps(list(GeneratedOutput.objects.filter(run=run).values_list("messages", flat=True)))
        assert "data:image" not in stored  # an image is inlined for the request only, never stored
        assert run.environment["generation"]["server"] == "transformers"
        assert run.environment["generation"]["server_options"]["images_per_prompt"] == 1
        primary = next(c["key"] for c in benchmarks[slug].metric_columns if c["primary"])
        assert Score.objects.filter(run=run, key=primary, slice_key="").exists()
        board = client.get(f"/api/benchmarks/{slug}/leaderboard/").json()
        assert [row["model"] for row in board["rows"]] == ["tiny-llava"]
    vqa = EvaluationRun.objects.get(submission_id=submission_id, benchmark__slug="indic-vision-vqa")
    # the judge graded every free-form answer with text (the tiny model's noise is often blank: 0, not asked)
    graded = sum(bool(r.detail.get("judgements")) for r in ItemResult.objects.filter(run=vqa))
    assert judge_server.request_count == graded
    assert vqa.environment["judge"]["role"] == "indic-vision"
    assert Score.objects.filter(
        run=vqa, key="overall", slice_key="language=Hindi,question_type=mcq"
    ).exists()  # a heatmap cell
    page = client.get("/benchmarks/indic-vision-vqa/").content.decode()
    assert '<details class="heatmap"><summary>Score (0-100): language × question type</summary>' in page
    assert (
        '<th scope="row">Hindi</th>' in page and '<th scope="col">Multiple choice</th>' in page
    )  # the question type in words (the label table)
    assert '<th scope="row">Bengali</th>' not in page  # only the languages it was scored on
    assert "A generated sample · dataset sample" in page and "not been checked by native speakers" in page
    items = client.get(f"/runs/{vqa.pk}/items/").content.decode()
    key = ItemResult.objects.filter(run=vqa).first().detail["image"]
    assert f'src="/runs/{vqa.pk}/media/{key}"' in items and "expected <code>" in items
    image = client.get(f"/runs/{vqa.pk}/media/{key}")
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg" and image.content[:2] == b"\xff\xd8"
    ocr_run = EvaluationRun.objects.get(submission_id=submission_id, benchmark__slug="indic-vision-ocr")
    assert client.get(f"/runs/{ocr_run.pk}/media/{key}").status_code == 404  # another dataset version's image
    assert client.get(f"/runs/{vqa.pk}/media/..%2F..%2Fsettings.py").status_code == 404
    ocr_page = client.get("/benchmarks/indic-vision-ocr/").content.decode()
    assert "Char. edit distance (0-100)<br>↓" in ocr_page and "heatmap" not in ocr_page
