"""IndicVisionBench as its authors score it: the answer tables of the released code (written out here by
hand from ``evaluation/utils.py`` and ``generation/utils.py`` of ola-krutrim/IndicVisionBench, never
read from our own table), gold answers in every released form imported from rows in the released
Parquet layout, predictions in every released form read, the prompt's released true/false words,
the three judge prompts with decimal grades, a cut-off answer flagged, English and Indic headlines
apart, and each board's method card."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from evaluators.core.media import HashingSink
from evaluators.core.types import Item, ItemScore, Prediction, Stage
from evaluators.indic_vision.evaluator import IndicVisionMMTEvaluator, IndicVisionOCREvaluator, IndicVisionVQAEvaluator
from evaluators.indic_vision.languages import BY_NAME, choice_letter, truth_value
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import FALLBACK_METRIC, Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply

OCR, MMT, VQA = IndicVisionOCREvaluator(), IndicVisionMMTEvaluator(), IndicVisionVQAEvaluator()

#: the released option-letter table (evaluation/utils.py, lang_abcd_map), form -> letter
RELEASED_LETTERS: dict[str, dict[str, str]] = {
    "English": {"A": "A", "B": "B", "C": "C", "D": "D"},
    "Hindi": {"ए": "A", "अ": "A", "बी": "B", "ब": "B", "सी": "C", "स": "C", "डी": "D", "द": "D"},
    "Bengali": {"এ": "A", "বি": "B", "সি": "C", "ডি": "D"},
    "Gujarati": {"એ": "A", "બી": "B", "સી": "C", "ડી": "D"},
    "Kannada": {"ಏ": "A", "ಬಿ": "B", "ಸಿ": "C", "ಡಿ": "D"},
    "Malayalam": {"എ": "A", "ബി": "B", "സി": "C", "ഡി": "D"},
    "Marathi": {"ए": "A", "अ": "A", "बी": "B", "ब": "B", "सी": "C", "डी": "D"},
    "Odia": {"ଏ": "A", "ଅ": "A", "ବି": "B", "ସି": "C", "ଡି": "D"},
    "Punjabi": {"ਏ": "A", "ਅ": "A", "ਬੀ": "B", "ਸੀ": "C", "ਡੀ": "D"},
    "Tamil": {"ஏ": "A", "அ": "A", "பி": "B", "சி": "C", "டி": "D"},
    "Telugu": {"ఏ": "A", "ఎ": "A", "బి": "B", "సి": "C", "డి": "D"},
}
#: the released true/false words the prompt asks for (generation/utils.py and evaluation/utils.py, truth_dict)
RELEASED_TRUTH: dict[str, tuple[str, str]] = {
    "Bengali": ("ঠিক", "ভুল"),
    "Gujarati": ("સાચું", "ખોટું"),
    "Hindi": ("सही", "गलत"),
    "Kannada": ("ಸರಿ", "ತಪ್ಪು"),
    "Malayalam": ("ശരി", "തെറ്റ്"),
    "Marathi": ("बरोबर", "चूक"),
    "Odia": ("ଠିକ୍", "ଭୁଲ୍"),
    "Punjabi": ("ਸਹੀ", "ਗਲਤ"),
    "Tamil": ("சரி", "தவறு"),
    "Telugu": ("ఒప్పు", "తప్పు"),
    "English": ("True", "False"),
}
#: the released synonyms (evaluation/utils.py, lang_true_false_map): word -> the truth it means
RELEASED_SYNONYMS: dict[str, dict[str, bool]] = {
    "Malayalam": {"ശരിയാണ്": True},
    "Marathi": {"चुकीचे": False},
    "Odia": {"ଭୁଲ": False},
    "Tamil": {"பொய்": False},
}
OPTIONS = ("वृत्त", "वर्ग", "त्रिभुज", "तारा")


def released_words() -> list[tuple[str, str, bool]]:
    words = [(name, true, True) for name, (true, _) in RELEASED_TRUTH.items()]
    words += [(name, false, False) for name, (_, false) in RELEASED_TRUTH.items()]
    return words + [(name, word, truth) for name, table in RELEASED_SYNONYMS.items() for word, truth in table.items()]


def released_forms() -> list[tuple[str, str, str]]:
    return [(name, form, letter) for name, table in RELEASED_LETTERS.items() for form, letter in table.items()]


def jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (24, 16), "green").save(out, "JPEG")
    return out.getvalue()


def vqa_row(row_id: str, language: str, **answers: str) -> dict[str, object]:
    """A row in the released vqa_* Parquet layout (Hugging Face krutrim-ai-labs/IndicVisionBench)."""
    row: dict[str, object] = {
        "id": row_id,
        "image": {"bytes": jpeg(), "path": f"{row_id}.jpg"},
        "language": language,
        "State/UT": "Odisha",
        "topic": "Festivals",
        "source_url": "",
        "short_q1": "q1",
        "short_a1": "a1",
        "short_q2": "q2",
        "short_a2": "a2",
        "mcq": "Which shape?",
        "mcq_opt1": OPTIONS[0],
        "mcq_opt2": OPTIONS[1],
        "mcq_opt3": OPTIONS[2],
        "mcq_opt4": OPTIONS[3],
        "mcq_a": "A",
        "true_false_q": "It is round.",
        "true_false_a": RELEASED_TRUTH[language][0],
        "long_q": "Describe it.",
        "long_a": "A green field.",
        "adversarial_question": "Why is it blue?",
        "adversarial_answer": "It is green.",
    }
    row.update(answers)
    return row


def imported(tmp_path: Path, rows: list[dict[str, object]]) -> dict[str, Item]:
    path = tmp_path / "vqa_indic" / "test-00000-of-00001.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return {item.id: item for item in VQA.import_release(tmp_path, HashingSink())}


def test_every_released_gold_letter_form_and_true_false_word_imports(tmp_path):
    forms, words = released_forms(), released_words()
    rows = [vqa_row(f"l{i}", name, mcq_a=form) for i, (name, form, _) in enumerate(forms)]
    rows += [vqa_row(f"w{i}", name, true_false_a=word) for i, (name, word, _) in enumerate(words)]
    items = imported(tmp_path, rows)
    for i, (name, form, letter) in enumerate(forms):
        code = BY_NAME[name].code
        assert items[f"vqa_indic/{code}/l{i}/mcq"].payload["gold"] == letter, (name, form)
    for i, (name, word, truth) in enumerate(words):
        assert items[f"vqa_indic/{BY_NAME[name].code}/w{i}/true_false"].payload["gold"] is truth, (name, word)
    assert len(forms) == 54 and len(words) == 26  # every entry of the released tables


@pytest.mark.parametrize("name, form, letter", released_forms())
def test_every_released_letter_form_reads_as_a_prediction(name, form, letter):
    language = BY_NAME[name]
    option = OPTIONS["ABCD".index(letter)]
    for written in (form, f"<{form}>", f"{form}।", f"{form}. {option}", f"({form}) {option}", f" {form} "):
        assert choice_letter(written, language, OPTIONS) == letter, (name, written)
    other = OPTIONS["ABCD".index(letter) - 1]
    assert choice_letter(f"{form}. {other}", language, OPTIONS) is None  # a letter and another option's text


@pytest.mark.parametrize("name, word, truth", released_words())
def test_every_released_true_false_word_reads_as_a_prediction(name, word, truth):
    for written in (word, f"{word}।", f" {word}. "):
        assert truth_value(written, BY_NAME[name]) is truth, (name, written)


def test_a_letter_form_opening_a_sentence_is_not_read():
    # Bengali এ means "this": the release's first-word rule would read this sentence as option A
    assert choice_letter("এ ছবিতে একটি বৃত্ত আছে", BY_NAME["Bengali"]) is None
    assert choice_letter("अब यह वर्ग है", BY_NAME["Hindi"]) is None  # अब ("now") starts with the form अ
    assert choice_letter("बीस", BY_NAME["Hindi"]) is None  # twenty, not बी


@pytest.mark.parametrize("name", sorted(RELEASED_TRUTH))
def test_the_true_false_prompt_asks_for_the_released_words(tmp_path, name):
    true, false = RELEASED_TRUTH[name]
    items = imported(tmp_path, [vqa_row("r", name)])
    item = items[f"vqa_indic/{BY_NAME[name].code}/r/true_false"]
    text = VQA.build_requests(item, {})[0].messages[0]["content"][0]["text"]
    assert f"{true} or {false}" in text and text.count(true) == 2 and text.count(false) == 2


def test_the_released_generation_settings_are_the_defaults_with_caps_for_indic_scripts(tmp_path):
    items = imported(tmp_path, [vqa_row("r", "Odia")])
    for kind in ("mcq", "true_false", "short_1", "long", "adversarial"):
        request = VQA.build_requests(items[f"vqa_indic/or/r/{kind}"], {})[0]
        # the release's OpenAI-compatible calls: temperature 0.7; its largest cap: 2,048 new tokens
        assert (request.temperature, request.top_p, request.n, request.max_tokens) == (0.7, 1.0, 1, 2048), kind
    mcq = VQA.build_requests(items["vqa_indic/or/r/mcq"], {"temperature": 0.0})[0]
    assert mcq.temperature == 0.0 and "\nA. वृत्त\nB. वर्ग\nC. त्रिभुज\nD. तारा" in mcq.messages[0]["content"][0]["text"]


def judge_of(server: OpenAIServer) -> IndicVisionVQAEvaluator:
    client = ChatClient(Endpoint(server.base_url, "judge"), max_concurrency=2)
    return VQA.with_judge(Judge(JudgeSpec("judge", "r1", "v1"), client, concurrency=2))


def test_three_judge_prompts_and_decimal_grades(tmp_path):
    items = imported(tmp_path, [vqa_row("r", "Tamil")])
    grades = {"accuracy and correctness": "7.5", "consistency, fluency and relevance": "8.25", "Premise, 0 or 5": "12"}

    def grader(request) -> Reply:
        prompt = request["messages"][-1]["content"]
        return Reply(text=next(grade for marker, grade in grades.items() if marker in prompt))

    with OpenAIServer(grader) as server:
        evaluator = judge_of(server)
        scores = {
            kind: evaluator.score_item(items[f"vqa_indic/ta/r/{kind}"], [Prediction("x", "ஒரு பச்சை வயல்")])
            for kind in ("short_1", "short_2", "long", "adversarial")
        }
        sent = [request["messages"] for request in server.requests]
    assert scores["short_1"].scores["short_1"] == 7.5 and scores["short_2"].scores["short_2"] == 7.5
    assert scores["long"].scores["long"] == 8.25 and scores["long"].scores["overall"] == 82.5
    assert scores["adversarial"].scores["adversarial"] == 10.0  # clamped to 0-10, as released
    prompts = [s.detail["judgements"][0]["prompt"] for s in scores.values()]
    assert prompts == ["indic-vqa-short", "indic-vqa-short", "indic-vqa-long", "indic-vqa-false-premise"]
    assert all(s.detail["judgements"][0]["calls"][0]["error_kind"] == "" for s in scores.values())  # no fallback
    assert all(len(messages) == 1 and messages[0]["role"] == "user" for messages in sent)  # one user message
    # no wrong-language penalty: the judge is not told the language, nor asked to mind it
    assert not any("Tamil" in messages[0]["content"] or "wrong language" in messages[0]["content"] for messages in sent)
    assert {m.key: m.value for m in VQA.aggregate(list(scores.values())) if not m.slice}[FALLBACK_METRIC] == 0.0


def test_a_cut_off_answer_is_scored_on_its_text_and_flagged(tmp_path):
    items = imported(tmp_path, [vqa_row("r", "Hindi", mcq_a="बी")])
    mcq = items["vqa_indic/hi/r/mcq"]
    cut = VQA.score_item(
        mcq, [Prediction(mcq.id, "बी. वर्ग, क्योंकि", error_kind="cut_off", error="cut off (finish_reason length)")]
    )
    whole = VQA.score_item(mcq, [Prediction(mcq.id, "<बी>")])
    staged = VQA.score_item(mcq, [Prediction(mcq.id, "बी", transcript=(Stage([], "बी", finish_reason="length"),))])
    assert (cut.scores["mcq"], cut.scores["cut_off"], cut.detail["cut_off"]) == (1.0, 1.0, True)
    assert (whole.scores["cut_off"], whole.detail["cut_off"]) == (0.0, False)
    assert staged.scores["cut_off"] == 1.0
    assert {m.key: m.value for m in VQA.aggregate([cut, whole]) if not m.slice}["cut_off"] == 0.5
    ocr_item = next(iter(OCR.import_release(OCR.presentation().sample_dataset(), HashingSink())))
    page = OCR.score_item(ocr_item, [Prediction(ocr_item.id, ocr_item.payload["text"][:5], error_kind="cut_off")])
    assert page.scores["cut_off"] == 1.0 and page.scores["coverage"] == 1.0 and page.scores["ned_char"] < 100


def score(language: str, index: int, value: float) -> ItemScore:
    return ItemScore(
        f"vqa_indic/{language}/img{index}/mcq",
        {"language": language, "question_type": "mcq"},
        {"mcq": value / 100, "overall": value, "coverage": 1.0, "cut_off": 0.0},
    )


def test_english_and_indic_headlines_are_apart_each_a_mean_over_its_languages():
    # eight English images right, Hindi one of one right, Tamil none of three: pooled 9/12, but Indic (100 + 0) / 2
    scores = [score("English", i, 100.0) for i in range(8)] + [score("Hindi", 0, 100.0)]
    scores += [score("Tamil", i, 0.0) for i in range(3)]
    headline = {m.key: m for m in VQA.aggregate(scores) if not m.slice}
    assert headline["english"].value == 100.0 and headline["english"].n == 8
    assert headline["indic"].value == 50.0 and headline["indic"].n == 4
    assert headline["overall"].value == 75.0
    assert next(c.key for c in VQA.metric_columns if c.primary) == "indic"
    assert {"english", "indic", "cut_off"} <= {c.key for c in VQA.metric_columns}
    ocr = [
        ItemScore(
            f"ocr/{lang}/{i}",
            {"language": lang},
            {
                "ned_char": v,
                "ned_word": v,
                "coverage": 1.0,
                "cut_off": 0.0,
                "char_edits": 0.0,
                "ref_chars": 1.0,
                "word_edits": 0.0,
                "ref_words": 1.0,
            },
        )
        for lang, i, v in (("English", 0, 0.0), ("Hindi", 0, 10.0), ("Hindi", 1, 30.0), ("Telugu", 0, 60.0))
    ]
    found = {m.key: m.value for m in OCR.aggregate(ocr) if not m.slice}
    assert (found["ned_char"], found["ned_char_indic"], found["ned_char_english"]) == (25.0, 40.0, 0.0)


def test_each_boards_method_card_states_its_protocol():
    cards = {e.key: {row.element: row for row in e.presentation().method_card()} for e in (OCR, MMT, VQA)}
    for card in cards.values():
        assert {"Image", "Sampling", "Answer length", "Failed requests", "Intervals", "Headline", "Counts"} <= set(card)
        assert card["Image"].here == "as released" and all(row.source for row in card.values())
        assert all(row.why for row in card.values() if row.deviates)
    assert "4,096" in cards["indic-vision-ocr"]["Answer length"].here
    assert (
        "2,048" in cards["indic-vision-vqa"]["Answer length"].here
        and "Cut off" in cards["indic-vision-vqa"]["Answer length"].here
    )
    mmt = cards["indic-vision-mmt"]
    assert mmt["BLEU"].here == "as released" and "no effective order" in mmt["BLEU"].released
    assert "NFC" in mmt["Normalized before BLEU, chrF++ and RIBES"].here
    vqa = cards["indic-vision-vqa"]
    assert not vqa["Decimal grades"].deviates and not vqa["Wrong-language penalty"].deviates
    assert (
        "indic-vqa-short@v1" in vqa["Judge prompts"].here and "indic-vqa-false-premise@v1" in vqa["Judge prompts"].here
    )
    assert "English beside it" in vqa["Headline"].here and "Judge" in vqa
    assert "Judge prompts" not in cards["indic-vision-ocr"] and "BLEU" not in cards["indic-vision-vqa"]


def test_bleu_and_ribes_as_the_released_code_computes_them():
    from evaluators.indic_vision.metrics import ribes, translation_scores

    # a corpus BLEU of one sentence, no effective order: under four tokens there is no 4-gram, so 0 even when
    # exact; a longer sentence with no matching 4-gram is smoothed (12.5% for the 4-gram precision), not 0
    assert translation_scores("तीन लाल वृत्त", "तीन लाल वृत्त")["bleu"] == 0.0
    smoothed = translation_scores("the cat sat under the mat today", "the cat sat on a mat today")["bleu"]
    assert smoothed == pytest.approx(100 * (5 / 7 * 3 / 6 * 1 / 5 * 1 / 8) ** 0.25)
    assert ribes("Red Circle", "red circle") == 1.0 and ribes("वृत्त", "वृत्त") == 1.0  # lower-cased; one word equal
