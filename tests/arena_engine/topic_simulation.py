"""Simulated arena battles with planted topics (shared by the topic tests and bench/bench_topics.py):
prompts drawn from three topics with distinct vocabularies (plus words common to all), and each topic
with its own true ranking of the same five models, so that a different model leads each topic."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaluators.arena.rating_types import BattleArrays

TOPIC_WORDS = (
    "recipe oven flour butter sugar bake dough yeast bread cake pastry knead whisk simmer sauce garlic onion "
    "roast".split(),
    "python function error compile variable loop array pointer debug syntax library thread memory stack class "
    "module".split(),
    "league goal striker match referee penalty season coach stadium keeper tournament transfer midfield tackle "
    "score".split(),
)
COMMON_WORDS = "what best explain difference help write short answer question simple example today".split()
MODELS = ["m0", "m1", "m2", "m3", "m4"]
#: true ratings (Elo points, scale 400) of MODELS per topic: m0 leads topic 0, m2 topic 1, m4 topic 2
TRUE = np.array(
    [
        [1200.0, 1100.0, 1000.0, 900.0, 800.0],
        [900.0, 1000.0, 1200.0, 1100.0, 800.0],
        [800.0, 900.0, 1000.0, 1100.0, 1200.0],
    ]
)
LEADERS = [0, 2, 4]


@dataclass
class Simulated:
    prompts: list[str]
    topic: np.ndarray
    battles: BattleArrays


def simulate_topics(
    n: int, *, seed: int, words_per_prompt: int = 8, topic_share: float = 0.7, tie: float = 0.1
) -> Simulated:
    """``n`` battles: a topic drawn uniformly, a prompt of ``words_per_prompt`` words, each from the
    topic's vocabulary with probability ``topic_share`` (else a common word), two different models drawn
    uniformly and the outcome by the topic's true ratings (ties with probability ``tie``)."""
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, len(TOPIC_WORDS), n)
    prompts = []
    for t in topic:
        own = rng.random(words_per_prompt) < topic_share
        vocab = TOPIC_WORDS[t]
        prompts.append(
            " ".join(
                vocab[rng.integers(len(vocab))] if o else COMMON_WORDS[rng.integers(len(COMMON_WORDS))] for o in own
            )
        )
    m = len(MODELS)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    p = 1.0 / (1.0 + 10.0 ** ((TRUE[topic, b] - TRUE[topic, a]) / 400.0))
    is_tie = rng.random(n) < tie
    outcome = np.where(is_tie, 2, np.where(rng.random(n) < p, 0, 1))
    return Simulated(prompts=prompts, topic=topic, battles=BattleArrays(list(MODELS), a, b, outcome))
