"""Which two models meet in the next battle, and with what probability.

Policy: every unordered pair {i, j} of enabled models (weight > 0) gets the score
``w_i * w_j``, where ``w`` is the model's weight multiplied by ``boost`` while it has fewer than
``new_model_votes`` votes. With ``active=True`` the score is further multiplied by the mean 95%
interval width of the two models (a model without an interval counts as the widest), steering votes
towards the least certain ratings. The pair is drawn with probability score / total, then the sides
are swapped with probability 1/2.

``Pair.propensity`` is the probability of drawing that **unordered** pair (the side swap is a fair
coin and does not depend on the models, so it carries no information for reweighting). Inverse
propensity weights for the ratings are ``1 / propensity``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_BOOST = 4.0
#: a model counts as new (its weight boosted) while it has fewer counted votes than this
DEFAULT_NEW_MODEL_VOTES = 300


@dataclass
class ModelStats:
    name: str
    weight: float = 1.0
    votes: int = 0
    ci_width: float | None = None


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    propensity: float


def _scores(
    models: Sequence[ModelStats], new_model_votes: int, boost: float, active: bool
) -> list[tuple[str, str, float]]:
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise ValueError("models: names must be unique")
    for m in models:
        if m.weight < 0:
            raise ValueError(f"models: {m.name} has a negative weight")
    live = [m for m in models if m.weight > 0]
    if len(live) < 2:
        raise ValueError("models: at least two models with a positive weight are needed for a battle")
    widths = [m.ci_width for m in live if m.ci_width is not None]
    widest = max(widths) if widths else 1.0

    def weight(m: ModelStats) -> float:
        return m.weight * (boost if m.votes < new_model_votes else 1.0)

    def width(m: ModelStats) -> float:
        return widest if m.ci_width is None else max(m.ci_width, 1e-9)

    out = []
    for i, x in enumerate(live):
        for y in live[i + 1 :]:
            score = weight(x) * weight(y)
            if active:
                score *= (width(x) + width(y)) / 2.0
            out.append((x.name, y.name, score))
    return out


def pair_probabilities(
    models: Sequence[ModelStats],
    *,
    new_model_votes: int = DEFAULT_NEW_MODEL_VOTES,
    boost: float = DEFAULT_BOOST,
    active: bool = False,
) -> dict[tuple[str, str], float]:
    """Probability of each unordered pair, keyed by the names in ``models`` order; sums to 1."""
    scores = _scores(models, new_model_votes, boost, active)
    total = sum(s for _, _, s in scores)
    return {(x, y): s / total for x, y, s in scores}


def choose_pair(
    models: Sequence[ModelStats],
    *,
    rng: random.Random,
    new_model_votes: int = DEFAULT_NEW_MODEL_VOTES,
    boost: float = DEFAULT_BOOST,
    active: bool = False,
) -> Pair:
    """Draw a pair under the policy and swap sides at random; see the module doc for the propensity."""
    probabilities = pair_probabilities(models, new_model_votes=new_model_votes, boost=boost, active=active)
    target = rng.random()
    cumulative = 0.0
    chosen = next(iter(probabilities))
    for pair, probability in probabilities.items():
        cumulative += probability
        chosen = pair
        if target < cumulative:
            break
    x, y = chosen
    if rng.random() < 0.5:
        x, y = y, x
    return Pair(a=x, b=y, propensity=probabilities[chosen])
