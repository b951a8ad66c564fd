"""The per-item page shows the work: a Multi-LCB sample's program and how far its tests went, Video NIAH's
question, options, answer, reading, expected answer and needle images, transcripts across the whole
table; "only items not fully passed" follows each benchmark's full marks (Evaluator.item_passed, recorded
with the result), and results stored before that fall back to a primary score below 1. Item results are
written by hand through the service that records them."""

from __future__ import annotations

from typing import Any

import pytest

from evaluators.core import ItemScore, evaluator_for
from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.catalog.services import benchmarks_sync, model_get_or_create
from leaderboard.runs.models import EvaluationRun, ItemResult
from leaderboard.runs.services.chunks import item_result_row
from tests.support.factories import run_make

pytestmark = pytest.mark.django_db

NEEDLE, CLUE = "a" * 64 + ".jpg", "b" * 64 + ".jpg"


def run_of(slug: str, owner: Any) -> EvaluationRun:
    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug=slug)
    dataset = DatasetVersion.objects.create(
        benchmark=benchmark, tag="hand-made", content_hash="0" * 64, storage_key="none", item_count=2, is_current=True
    )
    model = model_get_or_create(owner=owner, name=f"{slug}-model", is_public=True)
    return run_make(benchmark, owner, model, dataset_version=dataset, items=2)


def record(run: EvaluationRun, *scores: ItemScore) -> None:
    """As the scoring worker records them: primary score and full marks from the run's evaluator."""
    evaluator = evaluator_for(run.evaluator_key)
    primary = next(c.key for c in evaluator.metric_columns if c.primary)
    ItemResult.objects.bulk_create(
        [
            item_result_row(
                run_id=run.pk, score=s, primary_key=primary, item_passed=evaluator.presentation().item_passed
            )
            for s in scores
        ]
    )


def listed(client: Any, run: EvaluationRun, failed_only: bool) -> set[str]:
    return {r.item_id for r in client.get(f"/runs/{run.pk}/items/{'?failed=1' if failed_only else ''}").context["page"]}


def lcb_score(item_id: str, samples: list[dict[str, Any]]) -> ItemScore:
    c = sum(s["verdict"] == "passed" for s in samples)
    return ItemScore(
        item_id,
        {"language": "python"},
        {"n": float(len(samples)), "c": float(c), "pass@1": c / len(samples)},
        {"language": "python", "tests": 3, "public_tests": 1, "samples": samples},
    )


def lcb_sample(index: int, verdict: str, **more: Any) -> dict[str, Any]:
    return {
        "sample_index": index,
        "verdict": verdict,
        "failed_test": None,
        "failed_test_public": None,
        "reason": "",
        "tests_run": 3,
        "program": f"print(a + b)  # sample {index} <ok>\n",
        "program_truncated": False,
        **more,
    }


def test_a_multi_lcb_sample_shows_its_program_and_where_its_tests_stopped(client, multi_lcb, user):
    run = run_make(multi_lcb, user, "coder", items=2)
    wrong = lcb_sample(
        1,
        "wrong_answer",
        failed_test=0,
        failed_test_public=True,
        tests_run=1,
        reason="line 1 differs",
        difference={"at": 0, "start": 0, "expected": "3\n", "got": "12\n"},
    )
    hidden = lcb_sample(2, "wrong_answer", failed_test=2, failed_test_public=False, reason="expected 1 line(s), got 2")
    record(
        run,
        lcb_score("t1_a/python", [lcb_sample(0, "passed"), wrong, hidden]),
        lcb_score("t2_a/python", [lcb_sample(0, "passed"), lcb_sample(1, "passed")]),
    )
    html = client.get(f"/runs/{run.pk}/items/").content.decode()
    assert (
        '<pre class="program"><code class="language-python">print(a + b)  # sample 1 &lt;ok&gt;\n</code></pre>' in html
    )
    assert "Program (Python)" in html  # the language in words (the label table), as "C++" for cpp
    assert (
        "passed 0 of 3 tests, then failed test 1 (public)" in html
        and "passed 2 of 3 tests, then failed test 3 (hidden)" in html
    )
    assert "passed all 3 tests" in html and "<pre>12\n</pre>" in html and "<pre>3\n</pre>" in html
    assert listed(client, run, failed_only=True) == {"t1_a/python"}  # one sample of three failed: not full marks


def niah_score(item_id: str, question: str, answer: str, gold: str, correct: bool) -> ItemScore:
    return ItemScore(
        item_id,
        {"frames": "32", "question": item_id.rsplit("/", 1)[1]},
        {"correct": float(correct), "over_limit": 0.0},
        {
            "answer": answer,
            "parsed": answer,
            "gold": gold,
            "error_kind": "",
            "question": question,
            "options": ["a red kite", "a blue door", "a green cup", "a white owl"],
            "needles": [NEEDLE, CLUE],
        },
    )


def test_niah_multi_hop_lists_a_wrong_hop_under_failed_only_with_its_question_answer_and_needles(client, user):
    run = run_of("video-niah-multi", user)
    record(
        run,
        niah_score("multi/c1/32/q1", "What does the chain's last frame show?", "D", "D", True),
        niah_score("multi/c1/32/q2", "What colour is the object?", "A", "C", False),
    )
    assert listed(client, run, failed_only=True) == {"multi/c1/32/q2"}
    assert listed(client, run, failed_only=False) == {"multi/c1/32/q1", "multi/c1/32/q2"}
    html = client.get(f"/runs/{run.pk}/items/?failed=1").content.decode()
    assert (
        "Hop 2 question:" in html and "<pre>What colour is the object?</pre>" in html and "<li>a green cup</li>" in html
    )
    assert "read as <code>A</code> · expected <code>C</code>" in html
    assert f'src="/runs/{run.pk}/media/{NEEDLE}"' in html and f'src="/runs/{run.pk}/media/{CLUE}"' in html
    assert "The chain's 2 images" in html
    other = html[html.index('<div class="companion">') :]  # the wrong hop shows the chain's other hop beside it
    other = other[: other.index("</div>")]
    assert "Hop 1 (<code>multi/c1/32/q1</code>)" in other and "What does the chain&#x27;s last frame show?" in other
    assert "expected <code>D</code>" in other and '<span class="badge passed">right</span>' in other
    api = client.get(f"/api/runs/{run.pk}/items/?failed=1").json()["results"]  # the API's filter is the same
    assert [(r["item_id"], r["passed"]) for r in api] == [("multi/c1/32/q2", False)]


def test_a_perfect_ocr_page_is_not_listed_under_failed_only(client, user):
    run = run_of("indic-vision-ocr", user)
    scores = {
        "ned_word": 0.0,
        "char_edits": 0.0,
        "ref_chars": 40.0,
        "word_edits": 0.0,
        "ref_words": 8.0,
        "coverage": 1.0,
        "cut_off": 0.0,
    }
    record(
        run,
        ItemScore(
            "ocr/hindi/1", {"language": "Hindi"}, {**scores, "ned_char": 0.0}, {"image": NEEDLE, "answer": "पाठ"}
        ),
        ItemScore("ocr/hindi/2", {"language": "Hindi"}, {**scores, "ned_char": 12.5}, {"image": CLUE, "answer": "पाट"}),
    )
    assert listed(client, run, failed_only=True) == {"ocr/hindi/2"}


def test_results_stored_before_full_marks_were_recorded_fall_back_to_a_primary_score_below_one(client, user):
    run = run_of("video-niah-single", user)
    ItemResult.objects.bulk_create(
        [
            ItemResult(run=run, item_id="old/right", scores={"correct": 1.0}, primary_score=1.0),
            ItemResult(run=run, item_id="old/wrong", scores={"correct": 0.0}, primary_score=0.0),
        ]
    )
    record(
        run,
        ItemScore("new/wrong", {}, {"correct": 0.0, "over_limit": 0.0}),
        ItemScore("new/broken", {}, {}, error="scoring failed"),
    )
    assert ItemResult.objects.get(run=run, item_id="old/wrong").passed is None
    assert listed(client, run, failed_only=True) == {"old/wrong", "new/wrong", "new/broken"}


def test_a_transcript_spans_the_table_and_no_template_comment_leaks(client, user):
    run = run_of("causal-pitfalls-code", user)
    stage = {
        "messages": [{"role": "user", "content": "Estimate the effect."}],
        "answer": "```python\nprint(df.mean())\n```",
        "tool": {},
        "error_kind": "",
        "error": "",
        "finish_reason": "stop",
    }
    record(
        run,
        ItemScore(
            "cp/1",
            {},
            {"causal_reliability": 0.5},
            {
                "samples": [{"sample_index": 0, "verdict": "scored", "score": 0.5, "reason": "1 of 2 criteria met"}],
                "transcripts": [{"sample_index": 0, "stages": [stage]}],
            },
        ),
    )
    html = client.get(f"/runs/{run.pk}/items/").content.decode()
    assert "Conversation" in html and "Estimate the effect." in html
    assert "One sample's transcript" not in html and "{#" not in html
    work = html[html.index('<tr class="work"><td colspan="4">') :]
    assert work.index('<details class="transcript">') < work.index(
        "</td>"
    )  # inside the row that spans all four columns


def test_the_board_rows_link_to_their_per_item_pages(client, multi_lcb, user):
    from tests.support.factories import scored_run

    run = scored_run(multi_lcb, user, "linked-model", 0.5)
    html = client.get("/benchmarks/multi-lcb/").content.decode()
    assert f'href="/runs/{run.pk}/items/"' in html
