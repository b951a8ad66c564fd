"""What IndicVisionBench asks a model and its judge, following the released protocol in our own words:
the text part first, then the image (a stored medium the client sends inline); instructions in
English, answers asked in the item's language, true/false answers in the released true and false
words of that language (``languages``). The generation defaults are the released wrappers' (see
``GENERATION``), with token caps that leave room for Indic scripts.

The VQA judge is text-only, as released: question, gold answer and model answer in one user message,
one number from 0 to 10 back (a decimal grade such as 7.5 is a grade). There are three judge prompts,
one per released prompt type: short answers (accuracy and correctness), long answers (consistency,
fluency and relevance) and adversarial questions (5 points for catching the false premise or saying
it cannot be confirmed, 0-5 for what the image really shows). No penalty for the language of the
answer: the release has none."""

from __future__ import annotations

import math
from typing import Any

from evaluators.core.media import media_part
from evaluators.core.types import Item
from evaluators.indic_vision.languages import BY_NAME, LETTERS
from evaluators.llm.judges import JudgePrompt, register_prompt

#: the generation defaults: temperature as the release's OpenAI-compatible calls (GPT-4o, Gemini 2.5
#: Flash) set it; 0 for max_tokens means each task's own cap (MAX_TOKENS)
GENERATION: dict[str, Any] = {"n": 1, "temperature": 0.7, "top_p": 1.0, "max_tokens": 0, "seed": 0}
#: new tokens per task or question type unless the run sets max_tokens: the release's largest cap
#: (2,048: its Llama 4 and PALO wrappers) for every answer, twice that for a page of OCR, since
#: tokenizers often spend several tokens on one Indic word
MAX_TOKENS = {
    "ocr": 4096,
    "mmt": 2048,
    "mcq": 2048,
    "true_false": 2048,
    "short_1": 2048,
    "short_2": 2048,
    "long": 2048,
    "adversarial": 2048,
}

OCR_PROMPT = "Read the text in this image and write it out exactly. Give the text alone."


def prompt_text(item: Item) -> str:
    payload = item.payload
    task = payload["task"]
    if task == "ocr":
        return OCR_PROMPT
    language = payload["language"]
    if task == "mmt":
        return (
            f"{payload['english']}\n\nThis is a caption of the image. Give its translation into {language}, "
            "with no comment or other text."
        )
    kind, question = payload["type"], payload["question"].strip()
    if kind == "mcq":
        options = "\n".join(f"{letter}. {option}" for letter, option in zip(LETTERS, payload["options"]))
        return (
            f"Reply with a single choice written as <A>, <B>, <C> or <D>, and nothing else.\n"
            f"Question: {question}\nOptions:\n{options}"
        )
    if kind == "true_false":
        words = BY_NAME[language]
        true, false = words.true_words[0], words.false_words[0]
        return f"Reply with one word only, {true} or {false}.\nStatement: {question}\nChoices: {true} or {false}."
    if kind in ("short_1", "short_2"):
        return f"{question} Answer in {language}, briefly and clearly."
    return f"{question} Answer in {language}, in detail."


def request_messages(item: Item) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": [{"type": "text", "text": prompt_text(item)}, media_part(item.payload["image"])]}
    ]


#: what a judge must answer: one number from 0 to 10 (guided decoding where the server has it)
GRADE_SCHEMA: dict[str, Any] = {"type": "number", "minimum": 0, "maximum": 10}
#: the judge's output cap, as released
JUDGE_MAX_TOKENS = 50


def grade_problem(value: Any) -> str | None:
    """What is wrong with a judge's parsed answer (None: a usable grade, clamped to 0-10 later)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return "not a number from 0 to 10"
    return None


def grade_of(value: Any) -> float:
    """A usable grade, clamped to 0-10 as the release clamps it."""
    return min(max(float(value), 0.0), 10.0)


_ANSWER = "Question: $question\nGold answer: $gold\nAnswer to grade: $answer\n\n"
_NUMBER = "Reply with one number from 0 to 10 and nothing else."

SHORT_PROMPT = register_prompt(
    JudgePrompt(
        "indic-vqa-short",
        "v1",
        user="You grade a vision-language model's short answer to a question about an image. Compare it with the gold "
        "answer for accuracy and correctness: a high score when it says what the gold answer says, a low one when it "
        "shows no knowledge of it or is beside the point.\n\n" + _ANSWER + _NUMBER,
    )
)
LONG_PROMPT = register_prompt(
    JudgePrompt(
        "indic-vqa-long",
        "v1",
        user="You grade a vision-language model's long answer to a question about an image. Compare it with the gold "
        "answer for consistency, fluency and relevance: a high score when it agrees closely with the gold answer, a "
        "low one when it shows no knowledge of it or is beside the point.\n\n" + _ANSWER + _NUMBER,
    )
)
ADVERSARIAL_PROMPT = register_prompt(
    JudgePrompt(
        "indic-vqa-false-premise",
        "v1",
        user="You grade a vision-language model's answer to a trick question about an image: the question assumes "
        "something about the image that is false.\n\n" + _ANSWER + "Add two parts:\n"
        "- Premise, 0 or 5: 5 when the answer points out that the question's assumption is wrong, or says it cannot "
        "confirm it; 0 when it answers as though the assumption held.\n"
        "- Content, 0 to 5: how well the answer says what the image really shows (the gold answer): 0 wrong or not "
        "tried, 1-2 vague or partly right, 3-4 mostly right but incomplete, 5 fully right. Give partial credit for "
        "partial identification, consistently.\n\n"
        "The grade is Premise + Content, 0 to 10. " + _NUMBER,
    )
)
#: the judge prompt of each judged question type, as the release picks them
JUDGE_PROMPTS = {
    "short_1": SHORT_PROMPT,
    "short_2": SHORT_PROMPT,
    "long": LONG_PROMPT,
    "adversarial": ADVERSARIAL_PROMPT,
}
