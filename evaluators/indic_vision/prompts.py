"""What IndicVisionBench asks a model and its judge, following the released protocol: the text part
first, then the image (a stored medium the client sends inline); instructions in English, answers
asked in the item's language. The VQA judge is text-only: question, gold answer, model answer, one
number from 0 to 10 (adversarial questions with their own rubric)."""
from __future__ import annotations

from typing import Any

from evaluators.core.media import media_part
from evaluators.core.types import Item
from evaluators.indic_vision.languages import BY_NAME, LETTERS
from evaluators.llm.judges import JudgePrompt, register_prompt

#: new tokens per task or question type unless the run sets max_tokens
MAX_TOKENS = {"ocr": 1024, "mmt": 256, "mcq": 16, "true_false": 16, "short_1": 64, "short_2": 64, "long": 512,
              "adversarial": 512}
GRADES = tuple(str(n) for n in range(11))

OCR_PROMPT = "Extract the exact text from this image. Reply with only the text, nothing else."


def prompt_text(item: Item) -> str:
    payload = item.payload
    task = payload["task"]
    if task == "ocr":
        return OCR_PROMPT
    language = payload["language"]
    if task == "mmt":
        return (f"Caption: {payload['english']}\n\nTranslate this caption of the image into {language}. "
                "Reply with only the translation.")
    kind, question = payload["type"], payload["question"]
    if kind == "mcq":
        options = "\n".join(f"<{letter}> {option}" for letter, option in zip(LETTERS, payload["options"]))
        return f"{question}\n{options}\n\nAnswer with exactly one of <A>, <B>, <C> or <D>."
    if kind == "true_false":
        words = BY_NAME[language]
        return f"{question}\n\nAnswer with exactly one word: {words.true_words[0]} (true) or {words.false_words[0]} (false)."
    if kind in ("short_1", "short_2"):
        return f"{question}\n\nAnswer briefly, in {language}."
    return f"{question}\n\nAnswer in detail, in {language}."


def request_messages(item: Item) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": prompt_text(item)}, media_part(item.payload["image"])]}]


JUDGE_PROMPT = register_prompt(JudgePrompt(
    "indic-vqa-grade", "v1",
    system="You grade answers to questions about an image against a gold answer. Judge meaning, not wording or "
           "script; an answer in the wrong language loses points.",
    user="Question ($language):\n$question\n\nGold answer:\n$gold\n\nModel answer:\n$answer\n\n"
         "How well does the model answer match the gold answer, from 0 (wrong or empty) to 10 (fully correct and "
         "complete)? Reply with one number from 0 to 10."))
ADVERSARIAL_PROMPT = register_prompt(JudgePrompt(
    "indic-vqa-adversarial", "v1",
    system="You grade answers to trick questions about an image: each question rests on a false cultural premise.",
    user="Question ($language), built on a false premise:\n$question\n\nGold answer (what is actually true):\n$gold\n\n"
         "Model answer:\n$answer\n\nGive 5 points if the model answer flags the false premise or says it is unsure of "
         "it, and 0 to 5 more for how well its content matches the gold answer. Reply with one number from 0 to 10."))
