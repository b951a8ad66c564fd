"""IndicVisionBench scoring: requests carry the prompt then the image, with the task's token budget; each
task's item scores and aggregates (coverage counted, empty answers wrong, the judge asked only for
free-form answers, with the adversarial rubric); and the command line scores the sample with a judge."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evaluators.core.types import Prediction, ServerOptions
from evaluators.indic_vision.evaluator import IndicVisionMMTEvaluator, IndicVisionOCREvaluator, IndicVisionVQAEvaluator
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import FALLBACK_METRIC, Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.conftest import REPO
from tests.support.openai_server import OpenAIServer, Reply

OCR, MMT, VQA = IndicVisionOCREvaluator(), IndicVisionMMTEvaluator(), IndicVisionVQAEvaluator()
ITEMS = {e.key: list(e.import_release(e.presentation().sample_dataset())) for e in (OCR, MMT, VQA)}


def grader(request) -> Reply:
    """A judge that gives 7, or 4 on the adversarial rubric, so each prompt can be told apart."""
    prompt = request["messages"][-1]["content"]
    return Reply(text="4" if "Premise, 0 or 5" in prompt else "7")


def judged(server: OpenAIServer) -> IndicVisionVQAEvaluator:
    client = ChatClient(Endpoint(server.base_url, "judge"), max_concurrency=4)
    return VQA.with_judge(Judge(JudgeSpec("judge", "r1", "v1"), client, concurrency=4))


def test_requests_hold_the_prompt_then_the_image_and_the_tasks_token_budget():
    mcq = next(i for i in ITEMS[VQA.key] if i.id == "vqa_parallel/ta/scene-1/mcq")
    request = VQA.build_requests(mcq, {})[0]
    text, image = request.messages[0]["content"]
    assert text["type"] == "text" and "\nA. வட்டம்\n" in text["text"] and "<A>, <B>, <C> or <D>" in text["text"]
    assert image == {"type": "image_url", "image_url": {"url": f"media:{mcq.payload['image']}"}}
    assert request.max_tokens == 2048 and request.temperature == 0.7  # the release's largest cap; its API temperature
    assert VQA.build_requests(mcq, {"max_tokens": 4})[0].max_tokens == 4
    tf = next(i for i in ITEMS[VQA.key] if i.id == "vqa_parallel/hi/scene-1/true_false")
    assert "Reply with one word only, सही or गलत." in VQA.build_requests(tf, {})[0].messages[0]["content"][0]["text"]
    ocr = ITEMS[OCR.key][0]
    assert OCR.build_requests(ocr, {})[0].max_tokens == 4096
    mmt = ITEMS[MMT.key][0]
    assert "Give its translation into Bengali" in MMT.build_requests(mmt, {})[0].messages[0]["content"][0]["text"]
    assert OCR.generation().server == ServerOptions(images_per_prompt=1)
    with pytest.raises(ValueError, match="unknown setting 'beam'"):
        OCR.build_requests(ocr, {"beam": 2})


def test_ocr_scores_and_aggregates_lower_is_better_with_coverage():
    items = ITEMS[OCR.key]
    perfect = [OCR.score_item(i, [Prediction(i.id, i.payload["text"])]) for i in items[:4]]
    empty = [OCR.score_item(i, [Prediction(i.id, "", error_kind="empty")]) for i in items[4:6]]
    assert all(s.scores["ned_char"] == 0.0 and s.scores["coverage"] == 1.0 for s in perfect)
    assert all(s.scores["ned_char"] == 100.0 and s.scores["coverage"] == 0.0 for s in empty)
    metrics = {(m.key, tuple(m.slice.items())): m for m in OCR.aggregate(perfect + empty)}
    assert metrics[("ned_char", ())].value == pytest.approx(100 * 2 / 6)
    assert metrics[("cer", ())].value == pytest.approx(
        sum(s.scores["ref_chars"] for s in empty) / sum(s.scores["ref_chars"] for s in perfect + empty)
    )
    assert metrics[("coverage", ())].value == pytest.approx(4 / 6)
    assert ("ned_char", (("language", "English"),)) in metrics


def test_translation_scores_per_language_with_corpus_bleu():
    items = [i for i in ITEMS[MMT.key] if i.slices["language"] in ("Hindi", "Tamil")]
    scores = [MMT.score_item(i, [Prediction(i.id, i.payload["reference"])]) for i in items]
    assert all(s.scores["chrf_pp"] == pytest.approx(100) for s in scores)
    metrics = {(m.key, tuple(m.slice.items())): m for m in MMT.aggregate(scores)}
    assert metrics[("corpus_bleu", (("language", "Hindi"),))].value == pytest.approx(100)
    assert metrics[("bleu", ())].n == 6 and metrics[("coverage", ())].value == 1.0


def test_vqa_exact_types_need_no_judge_and_free_form_types_are_graded(tmp_path):
    items = {i.id: i for i in ITEMS[VQA.key]}
    with OpenAIServer(grader) as server:
        evaluator = judged(server)
        mcq = evaluator.score_item(items["vqa_parallel/hi/scene-2/mcq"], [Prediction("x", "<बी>")])
        wrong = evaluator.score_item(items["vqa_parallel/hi/scene-2/mcq"], [Prediction("x", "A")])
        unreadable = evaluator.score_item(items["vqa_parallel/bn/scene-1/true_false"], [Prediction("x", "maybe")])
        true = evaluator.score_item(items["vqa_parallel/bn/scene-1/true_false"], [Prediction("x", "সত্য।")])
        assert server.request_count == 0  # exact types never ask the judge
        short = evaluator.score_item(items["vqa_en/en/scene-1/short_1"], [Prediction("x", "three")])
        adversarial = evaluator.score_item(
            items["vqa_parallel/ta/scene-1/adversarial"], [Prediction("x", "It is red.")]
        )
        empty = evaluator.score_item(items["vqa_en/en/scene-1/long"], [Prediction("x", "", error_kind="refused")])
        assert server.request_count == 2  # the empty answer is 0 without asking
        sent = server.requests[1]["messages"][-1]["content"]
    assert (mcq.scores["mcq"], mcq.scores["overall"], mcq.detail["parsed"]) == (1.0, 100.0, "B")
    assert wrong.scores["mcq"] == 0.0 and wrong.scores["coverage"] == 1.0
    assert unreadable.scores == {"true_false": 0.0, "overall": 0.0, "coverage": 0.0, "cut_off": 0.0}
    assert true.scores["true_false"] == 1.0
    assert (short.scores["short_1"], short.scores["overall"]) == (7.0, 70.0)
    assert adversarial.scores["adversarial"] == 4.0 and "Premise, 0 or 5" in sent and "It is red." in sent
    assert adversarial.detail["judgements"][0]["prompt"] == "indic-vqa-false-premise"
    assert (
        empty.scores == {"long": 0.0, "overall": 0.0, "coverage": 0.0, "cut_off": 0.0}
        and empty.detail["judgements"] == []
    )
    metrics = {
        (m.key, tuple(m.slice.items())): m
        for m in VQA.aggregate([mcq, wrong, unreadable, true, short, adversarial, empty])
    }
    assert metrics[("mcq", ())].value == 0.5 and metrics[("mcq", (("language", "Hindi"),))].value == 0.5
    assert metrics[("adversarial", (("language", "Tamil"),))].value == 4.0
    assert (
        metrics[("overall", (("language", "Tamil"), ("question_type", "adversarial")))].value == 40.0
    )  # a heatmap cell
    assert metrics[("coverage", ())].value == pytest.approx(5 / 7)
    assert metrics[(FALLBACK_METRIC, ())].value == 0.0


def test_a_judge_answer_that_is_no_grade_is_a_counted_fallback():
    item = next(i for i in ITEMS[VQA.key] if i.id == "vqa_en/en/scene-1/long")
    with OpenAIServer(lambda req: Reply(text="excellent work")) as server:
        score = judged(server).score_item(item, [Prediction(item.id, "Three red circles.")])
    assert score.scores["long"] == 0.0 and score.detail["judgements"][0]["calls"][0]["error_kind"] == "malformed"
    metrics = {m.key: m for m in VQA.aggregate([score])}
    assert metrics[FALLBACK_METRIC].value == 1.0


def test_the_command_line_scores_the_sample_with_a_judge(tmp_path):
    def answer(item) -> str:  # right in English and Hindi, empty elsewhere
        if item.slices["language"] not in ("English", "Hindi"):
            return ""
        return {True: "True", False: "False"}.get(
            item.payload.get("gold"), str(item.payload.get("gold", item.payload["answer"]))
        )

    lines = [json.dumps({"item_id": i.id, "output": answer(i)}) for i in ITEMS[VQA.key]]
    (tmp_path / "preds.jsonl").write_text("\n".join(lines) + "\n")
    with OpenAIServer(grader) as server:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "evaluators",
                "score",
                "--benchmark",
                "indic-vision-vqa",
                "--dataset",
                str(VQA.presentation().sample_dataset()),
                "--predictions",
                str(tmp_path / "preds.jsonl"),
                "--judge",
                f"{server.base_url},judge",
                "--out",
                str(tmp_path / "out.json"),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    metrics = {(m["key"], tuple(m["slice"].items())): m for m in result["metrics"]}
    assert metrics[("mcq", (("language", "Hindi"),))]["value"] == 1.0
    assert metrics[("short_1", (("language", "English"),))]["value"] == 7.0
    assert metrics[("coverage", (("language", "Bengali"),))]["value"] == 0.0  # no answers: all wrong, none read
