"""Language identification (offline, py3langid) and intent classification, by rules and through a
judge model on the scripted OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from evaluators.arena import intent, language
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply


@pytest.mark.parametrize(
    "text, code",
    [
        ("How do I sort a dictionary by its values in Python?", "en"),
        ("Wie kann ich in Python eine Liste nach Werten sortieren?", "de"),
        ("Comment trier une liste de dictionnaires par valeur en Python ?", "fr"),
        ("¿Cómo puedo ordenar una lista de diccionarios por valor en Python?", "es"),
        ("Как отсортировать список словарей по значению в Python?", "ru"),
        ("如何在Python中按值对字典列表进行排序？", "zh"),
        ("Pythonで辞書のリストを値で並べ替えるにはどうすればよいですか？", "ja"),
    ],
)
def test_detects_languages(text: str, code: str) -> None:
    assert language.detect(text) == code
    assert language.detect_with_confidence(text)[1] > 0.5


@pytest.mark.parametrize("text", ["", "   ", "ok", "12 + 34 = 46", "?!", "🙂🙂🙂"])
def test_too_short_is_undetermined(text: str) -> None:
    assert language.detect(text) == "und"


def test_huge_prompt_is_fast_enough_to_classify() -> None:
    assert language.detect("Bonjour, je voudrais comprendre les générateurs. " * 1000) == "fr"


@pytest.mark.parametrize(
    "prompt, primary",
    [
        ("Who was the first president of France?", "Factual Lookup"),
        ("Compare asyncio.gather vs asyncio.wait", "Analysis"),
        ("Write a poem about snakes", "Creative Generation"),
        ("How do I install numpy on Debian?", "Guidance"),
        ("Explain how the GIL works", "Explanation"),
        ("Recommend the best HTTP library", "Recommendation"),
        ("Translate this into French: good morning", "Text Processing"),
        ("Give me an overview of the latest news on Python packaging", "Info Synthesis"),
        ("asdf qwer", "Other"),
    ],
)
def test_rule_classifier(prompt: str, primary: str) -> None:
    result = intent.classify_detailed(prompt)
    assert result.primary == primary and result.method == intent.METHOD
    assert result.secondary in intent.INTENTS and intent.classify(prompt) == (result.primary, result.secondary)


def _judge(server: OpenAIServer, prompt_version: str = "v1") -> Judge:
    return Judge(
        JudgeSpec("intent-judge", "rev1", prompt_version), ChatClient(Endpoint(server.base_url, "judge"), max_retries=0)
    )


def test_judge_classifies_with_the_class_names() -> None:
    answer = json.dumps({"primary": "Recommendation", "secondary": "Analysis"})
    with OpenAIServer(lambda request: Reply(text=answer)) as server:
        result = intent.classify_detailed("Which web framework is good for me?", judge=_judge(server))
    assert (result.primary, result.secondary) == ("Recommendation", "Analysis")
    assert result.method.startswith("judge intent-judge@rev1")
    asked = server.requests[0]["messages"][-1]["content"]
    assert "Which web framework is good for me?" in asked and "Info Synthesis" in asked
    assert result.judge_call and result.judge_call["raw_answer"] == answer


@pytest.mark.parametrize(
    "reply", [Reply(text=json.dumps({"primary": "Gossip", "secondary": "Other"})), Reply(status=500)]
)
def test_judge_failure_falls_back_to_rules_and_says_so(reply: Reply) -> None:
    with OpenAIServer(lambda request: reply) as server:
        result = intent.classify_detailed("How do I install numpy?", judge=_judge(server))
    assert result.primary == "Guidance"
    assert (
        result.method.startswith(intent.METHOD)
        and "judge intent-judge@rev1" in result.method
        and "failed" in result.method
    )


def test_judge_without_the_intent_prompt_version() -> None:
    with OpenAIServer() as server:
        result = intent.classify_detailed("How do I install numpy?", judge=_judge(server, "v999"))
    assert result.primary == "Guidance" and "unusable" in result.method and server.request_count == 0
