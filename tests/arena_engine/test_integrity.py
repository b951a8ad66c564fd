"""Integrity statistics: self-identification, anomalous voters, near-duplicate prompt floods."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evaluators.arena.integrity import anomalous_voters, near_duplicate_groups, self_identification
from evaluators.arena.ratings import OUTCOMES
from tests.arena_engine.simulation import simulate

NAMES = ["gpt-4o-search", "GPT-4o", "ChatGPT", "OpenAI"]


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("I am ChatGPT, a large language model.", "I am ChatGPT"),
        ("Sure! As an OpenAI model, I can't browse private pages.", "As an OpenAI"),
        ("I'm GPT 4o and here is the answer.", "I'm GPT 4o"),
        ("Good question. I was developed by OpenAI to help.", "I was developed by OpenAI"),
        ("This assistant is powered by gpt-4o-search [1].", "powered by gpt-4o-search"),
    ],
)
def test_self_identification_positives(text, phrase):
    assert self_identification(text, NAMES) == phrase


@pytest.mark.parametrize(
    "text",
    [
        "OpenAI released GPT-4o in May 2024 [1].",  # brands in prose without a self-reference
        "See https://openai.com/index/i-am-chatgpt for details.",
        "According to [I am ChatGPT: the story](https://example.com/chatgpt), usage "
        "grew.",  # link text is a title, target dropped
        'The blog says "I am ChatGPT, made by OpenAI" in its header.',
        "> I am ChatGPT, created by OpenAI.\n\nThat quote comes from the help page.",
        "Prices rose.\n\nSources:\n1. I am ChatGPT – OpenAI Help (openai.com)\n",
        "Prices rose [1].\n[1] I'm ChatGPT: OpenAI's announcement",
        "I am happy to help with your question about Gemini.",
        "",
    ],
)
def test_self_identification_negatives(text):
    assert self_identification(text, NAMES) is None


def test_self_identification_needs_names():
    assert self_identification("I am ChatGPT", []) is None


def test_voter_who_always_picks_the_underdog_is_flagged_and_honest_ones_are_not():
    true = np.array([1000.0, 1100.0, 1200.0, 1300.0, 900.0, 1050.0])
    arr = simulate(true, 12_000, seed=3)
    rng = random.Random(0)
    votes = [
        (f"honest{i % 400}", arr.models[a], arr.models[b], OUTCOMES[o])
        for i, (a, b, o) in enumerate(zip(arr.a, arr.b, arr.outcome))
    ]
    for _ in range(40):
        a, b = rng.sample(range(len(true)), 2)
        votes.append(("rigger", f"m{a}", f"m{b}", "model_a" if true[a] < true[b] else "model_b"))
    flagged = anomalous_voters(votes, min_votes=20)
    assert list(flagged) == ["rigger"]
    assert "picked the lower-rated model 40 times" in flagged["rigger"] and "z = " in flagged["rigger"]
    as_dicts = [{"voter": v, "model_a": a, "model_b": b, "winner": w} for v, a, b, w in votes]
    assert anomalous_voters(as_dicts, min_votes=20) == flagged
    assert anomalous_voters(votes, min_votes=50) == {}  # the rigger has too few votes to judge
    assert anomalous_voters([]) == {}


def test_near_duplicate_flood_is_found_among_distinct_prompts():
    rng = random.Random(1)
    words = [f"w{i}" for i in range(3000)]
    prompts = [(f"p{i}", " ".join(rng.choices(words, k=12))) for i in range(3000)]
    template = "what is the best search engine for finding cheap flights to tokyo in april please answer briefly"
    flood = [
        (f"f{i}", template.replace("tokyo", "Tokyo!" if i % 2 else "tokyo") + ("" if i % 3 else " thanks"))
        for i in range(60)
    ]
    groups = near_duplicate_groups(prompts + flood, threshold=0.8)
    assert len(groups) == 1 and sorted(groups[0]) == sorted(pid for pid, _ in flood)
    assert near_duplicate_groups(dict(prompts[:50])) == []
    with pytest.raises(ValueError, match="threshold"):
        near_duplicate_groups(prompts[:2], threshold=0)
