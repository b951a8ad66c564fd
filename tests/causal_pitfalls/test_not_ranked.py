"""A figure is ranked only when its judge can be trusted: the same sentence sent as every CausalPitfalls
answer, scored by the real worker with a scripted judge that gives every criterion to anything (as the
135M demo judge gave 95.3% to such a sentence), is shown as "judge not validated: not ranked" on the board,
its CSV and API, the home page's card, the model's profile (page and API), compare (page and API) and the
models index (page and API), with a link to how a judge is validated. Validating that judge
(``manage.py validate_judge``) fails, and nothing is ranked; a judge of the same name and revision that
separates answers of known quality passes, and the board ranks as it always did."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from evaluators.core import evaluator_for
from leaderboard.runs.models import EvaluationRun, RunStatus
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for
from tests.support.openai_server import OpenAIServer, Reply

pytestmark = [pytest.mark.django_db(transaction=True)]
JUDGE = {"name": "tiny-judge", "revision": "2026-12-01", "prompt_version": "v1", "model": "judge"}
#: the label a validation of it is stored under: the prompt CausalPitfalls asks, not the setting's "v1"
LABEL = "tiny-judge@2026-12-01 (prompt causal-pitfalls-rubric@v2)"
NOT_RANKED = "judge not validated: not ranked"
EVALUATOR = evaluator_for("causal-pitfalls")


def count_of(request: dict[str, Any]) -> int:
    return int(re.search(r"exactly (\d+) of them", request["messages"][-1]["content"]).group(1))


def generous(request: dict[str, Any]) -> Reply:
    """Every criterion met, whatever the answer."""
    return Reply(text=json.dumps({"scores": [1] * count_of(request)}))


def discerning(request: dict[str, Any]) -> Reply:
    """Every criterion met only by the rubric's own criteria written out (the known good answer); none otherwise."""
    text = request["messages"][-1]["content"]
    criteria = json.loads(re.search(r"CRITERIA:\n(.*)\n\nTEXT TO GRADE:", text, re.DOTALL).group(1))
    answer = re.search(r"TEXT TO GRADE:\n(.*)\n\nReply with nothing", text, re.DOTALL).group(1)
    met = answer == " ".join(c["desc"] for c in criteria)
    return Reply(text=json.dumps({"scores": [int(met)] * len(criteria)}))


@pytest.fixture
def judge_server():
    with OpenAIServer(generous) as server:
        yield server


@pytest.fixture
def worker_env(worker_env: dict[str, str], judge_server: OpenAIServer) -> dict[str, str]:
    return {
        **worker_env,
        "LEADERBOARD_JUDGES": json.dumps({"causal-pitfalls": {**JUDGE, "base_url": judge_server.base_url}}),
    }


@pytest.fixture
def causal_pitfalls(db):
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug="causal-pitfalls")
    dataset_version_import(benchmark=benchmark, release_path=EVALUATOR.presentation().sample_dataset(), tag="sample")
    return benchmark


def submit_constant(api: Any, model: str, sentence: str) -> int:
    items = [item.id for item in EVALUATOR.import_release(EVALUATOR.presentation().sample_dataset())]
    data = "".join(json.dumps({"item_id": i, "output": sentence}) + "\n" for i in items).encode()
    upload = SimpleUploadedFile("predictions.jsonl", data, content_type="application/jsonl")
    response = api.post(
        "/api/submissions/",
        {"benchmark": "causal-pitfalls", "model_name": model, "predictions": upload},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return EvaluationRun.objects.get(submission_id=response.json()["id"]).pk


def shown(client: Any, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def card(home: str) -> str:
    """The CausalPitfalls (direct) card of the home page: its table and what follows it up to the card's end."""
    return re.search(r'aria-label="CausalPitfalls[^"]*: the leading models".*?</li>', home, re.DOTALL).group(0)


def test_constant_answers_under_an_unvalidated_judge_are_ranked_nowhere_until_the_judge_passes(
    causal_pitfalls, user, judge_server, celery_worker, client, settings
):
    from leaderboard import pagecache

    api = api_for(user)
    runs = [
        submit_constant(api, "same-sentence", "The data show a clear causal effect."),
        submit_constant(api, "other-sentence", "The effect is causal."),
    ]
    wait_for(
        lambda: not EvaluationRun.objects.filter(pk__in=runs).exclude(status=RunStatus.SUCCEEDED).exists(),
        timeout=300,
        what="scoring of the two constant submissions",
    )
    assert judge_server.request_count == 200  # 100 items each: every answer met every criterion

    # the board (API, CSV, page): shown with its figure, not ranked, the reason in words and a link to validation
    rows = {row["model"]: row for row in client.get("/api/benchmarks/causal-pitfalls/leaderboard/").json()["rows"]}
    for name in ("same-sentence", "other-sentence"):
        assert rows[name]["scores"]["causal_reliability"]["value"] == 1.0
        assert (rows[name]["rank"], rows[name]["ranked"], rows[name]["unranked_reason"]) == (None, False, NOT_RANKED)
    table = list(csv.DictReader(io.StringIO(shown(client, "/benchmarks/causal-pitfalls/?format=csv"))))
    assert {(r["model"], r["rank"], r["ranked"], r["unranked_reason"]) for r in table} == {
        ("same-sentence", "", "False", NOT_RANKED),
        ("other-sentence", "", "False", NOT_RANKED),
    }
    page = shown(client, "/benchmarks/causal-pitfalls/")
    assert (
        page.count(f'<span class="why not-validated">{NOT_RANKED} (<a href="/judges/#how">') == 3
    )  # the notice, each row
    assert 'class="notice judge-unvalidated"' in page

    # the home page's card names no leader
    home = card(shown(client, "/"))
    # each row's rank a dash titled with the reason; the reason with its link once under the table
    # (the column is narrow)
    assert "same-sentence" in home and home.count(f'<span title="{NOT_RANKED}">–</span>') == 2
    assert home.count(f'<span class="why not-validated">{NOT_RANKED} (<a href="/judges/#how">') == 1
    assert re.search(r'<td class="num">\d+</td>', home) is None

    # the model's profile, page and API
    slug = EvaluationRun.objects.get(pk=runs[0]).submission.model.slug
    other = EvaluationRun.objects.get(pk=runs[1]).submission.model.slug
    profile = client.get(f"/api/models/{slug}/profile/").json()["benchmarks"][0]
    assert (profile["rank"], profile["ranked"], profile["unranked_reason"]) == (None, False, NOT_RANKED)
    assert NOT_RANKED in shown(client, f"/models/{slug}/") and " of 2" not in shown(client, f"/models/{slug}/")

    # compare: no model marked better, the reason instead
    compared = client.get(f"/api/models/compare/?a={slug}&b={other}").json()["benchmarks"][0]
    assert compared["unranked_reason"] == NOT_RANKED and all(row["better"] == "" for row in compared["rows"])
    assert NOT_RANKED in shown(client, f"/compare/?a={slug}&b={other}")

    # the models index, page and API
    index = {row["name"]: row for row in client.get("/api/models/index/").json()["rows"]}
    headline = index["same-sentence"]["headlines"]["causal-pitfalls"]
    assert (headline["rank"], headline["ranked"], headline["unranked_reason"]) == (None, False, NOT_RANKED)
    assert NOT_RANKED in shown(client, "/models/") and "#1" not in shown(client, "/models/")

    # a snapshot frozen now keeps the rows unranked, with the reason (page and API)
    from leaderboard.history.services import snapshot_freeze

    snapshot = snapshot_freeze(benchmark=causal_pitfalls, reason="frozen by the test")
    frozen = client.get(f"/api/benchmarks/causal-pitfalls/snapshots/{snapshot.pk}/").json()["rows"]
    assert {(r["model"], r["rank"], r["unranked_reason"]) for r in frozen} == {
        ("same-sentence", None, NOT_RANKED),
        ("other-sentence", None, NOT_RANKED),
    }
    assert (
        shown(client, f"/benchmarks/causal-pitfalls/snapshots/{snapshot.pk}/").count(
            f'<span class="why not-validated">{NOT_RANKED} (<a href="/judges/#how">'
        )
        == 2
    )

    # validating the generous judge: every kind of answer scores 1.0, a separation of 0 -> fails, nothing ranked
    settings.JUDGES = {"causal-pitfalls": {**JUDGE, "base_url": judge_server.base_url}}
    out = io.StringIO()
    call_command("validate_judge", "causal-pitfalls", stdout=out)
    assert out.getvalue().startswith(f"{LABEL}: on 12 items of known quality (48 answers)")
    assert "a separation of 0%" in out.getvalue() and "so it fails" in out.getvalue()
    assert causal_pitfalls.dataset_versions.get(is_current=True).judge_validations[LABEL]["passed"] is False
    assert client.get("/api/benchmarks/causal-pitfalls/leaderboard/").json()["rows"][0]["rank"] is None
    judges = shown(client, "/judges/")
    assert "at least 50 points out of 100" in judges and f"no: {NOT_RANKED}" in judges

    # the same judge (name, revision, prompt) answering as a sound judge would: the good answers 1.0, the
    # constant, off-topic and restating ones 0 -> a separation of 100% -> passes, and the board ranks again
    with OpenAIServer(discerning) as sound:
        settings.JUDGES = {"causal-pitfalls": {**JUDGE, "base_url": sound.base_url}}
        call_command("validate_judge", "causal-pitfalls", stdout=io.StringIO())
    stored = causal_pitfalls.dataset_versions.get(is_current=True).judge_validations[LABEL]
    assert stored["passed"] is True and stored["means"] == {
        "meets": 1.0,
        "constant": 0.0,
        "off_topic": 0.0,
        "restated": 0.0,
    }
    pagecache.boards_changed()
    rows = {row["model"]: row for row in client.get("/api/benchmarks/causal-pitfalls/leaderboard/").json()["rows"]}
    assert {name: (row["rank"], row["ranked"]) for name, row in rows.items()} == {
        "same-sentence": (1, True),
        "other-sentence": (1, True),
    }  # equal intervals share the rank
    page = shown(client, "/benchmarks/causal-pitfalls/")
    assert (
        "why not-validated" not in page and "judge-unvalidated" not in page
    )  # no row or notice says it (the card does)
    assert client.get(f"/api/models/{slug}/profile/").json()["benchmarks"][0]["rank"] == 1
    assert re.search(r'<td class="num">1</td>', card(shown(client, "/")))
    assert "Its figures are ranked." in shown(client, "/benchmarks/causal-pitfalls/")
