"""The topic explorer's maths on simulated battles with known truth (tests/arena_engine/topic_simulation.py):
planted topics recovered (adjusted Rand index, checked on a hand-worked table), each topic's leader, the
prompt-conditioned fit's leader and held-out log-likelihood, declining with too few neighbours, and the
incremental assignment's refit rule."""

from __future__ import annotations

import numpy as np
import pytest

from evaluators.arena.conditioned import Kernel, conditioned_rating, effective_votes, held_out
from evaluators.arena.topics import (
    RefitRule,
    Vocabulary,
    adjusted_rand_index,
    ari_from_table,
    assign,
    fit_topics,
    kmeans,
    refit_due,
    words,
)
from tests.arena_engine.topic_simulation import LEADERS, MODELS, TOPIC_WORDS, simulate_topics

#: the explorer must recover the planted topics at least this well
ARI_THRESHOLD = 0.9


def test_ari_on_a_hand_worked_table() -> None:
    # rows: truth, columns: found. Pairs within cells: C(5,2)+C(1,2)+C(1,2)+C(4,2) = 10+0+0+6 = 16.
    # Row sums 6, 5 -> 15 + 10 = 25; column sums 6, 5 -> 25; n = 11 -> C(11,2) = 55.
    # expected = 25 * 25 / 55 = 11.3636..., max = 25; ARI = (16 - 11.3636) / (25 - 11.3636) = 0.34
    table = np.array([[5.0, 1.0], [1.0, 4.0]])
    assert ari_from_table(table) == pytest.approx((16 - 625 / 55) / (25 - 625 / 55))
    assert ari_from_table(table) == pytest.approx(0.34, abs=1e-9)
    truth = [0] * 6 + [1] * 5
    found = [0] * 5 + [1] + [0] + [1] * 4
    assert adjusted_rand_index(truth, found) == pytest.approx(0.34, abs=1e-9)
    assert adjusted_rand_index([0, 0, 1, 1], [5, 5, 7, 7]) == 1.0  # names do not matter


def test_words_drop_stop_words_and_digits() -> None:
    assert words("What is the BEST way to bake 2 loaves of bread?") == ["best", "bake", "loaves", "bread"]


def test_kish_effective_votes() -> None:
    assert effective_votes(np.ones(40)) == pytest.approx(40)
    # (1 + 1 + 2)^2 / (1 + 1 + 4) = 16 / 6
    assert effective_votes(np.array([1.0, 1.0, 2.0])) == pytest.approx(16 / 6)


@pytest.fixture(scope="module")
def sim():  # type: ignore[no-untyped-def]
    return simulate_topics(3000, seed=1)


@pytest.fixture(scope="module")
def vectors(sim):  # type: ignore[no-untyped-def]
    vocab = Vocabulary.fit(sim.prompts)
    counts = vocab.counts(sim.prompts)
    return vocab, counts, vocab.vectors(counts)


def test_explorer_recovers_the_planted_topics_and_their_leaders(sim, vectors) -> None:  # type: ignore[no-untyped-def]
    from evaluators.arena.ratings import RatingConfig, rate

    vocab, counts, x = vectors
    model, found = fit_topics(x, counts, vocab, k_top=3, k_sub=2, seed=0)
    ari = adjusted_rand_index(sim.topic, found.topic)
    assert ari >= ARI_THRESHOLD, ari
    for j in range(3):
        planted = np.bincount(sim.topic[found.topic == j], minlength=3).argmax()
        # the label is the planted topic's own words
        assert set(model.labels[j]) <= set(TOPIC_WORDS[planted]), model.labels[j]
        result = rate(sim.battles.subset(found.topic == j), RatingConfig(interval="sandwich", robustness=False))
        assert result.models[0].name == MODELS[LEADERS[planted]]
    assert [len(s) for s in model.sub] == [2, 2, 2]


def test_kmeans_is_seeded(vectors) -> None:  # type: ignore[no-untyped-def]
    x = vectors[2]
    assert np.array_equal(kmeans(x, 3, seed=4)[1], kmeans(x, 3, seed=4)[1])


def test_conditioned_fit_ranks_the_topics_leader_first(sim, vectors) -> None:  # type: ignore[no-untyped-def]
    vocab, _, x = vectors
    for t, leader in enumerate(LEADERS):
        query = vocab.vectors([" ".join(TOPIC_WORDS[t][:4])])[0]
        got = conditioned_rating(sim.battles, x, query)
        assert got.result is not None, got.declined
        assert got.result.models[0].name == MODELS[leader]
        assert got.effective_votes >= Kernel().min_effective
        assert "weighted by the kernel" in got.result.method and "inverse-propensity" not in got.result.method
        assert got.result.models[0].ci_low is not None and got.result.models[0].ci_low < got.result.models[0].rating


def test_conditioned_fit_declines_with_too_few_neighbours(sim, vectors) -> None:  # type: ignore[no-untyped-def]
    vocab, _, x = vectors
    few = np.flatnonzero(sim.topic == 0)[:10]  # only ten battles of topic 0 remain
    keep = np.concatenate([few, np.flatnonzero(sim.topic != 0)])
    query = vocab.vectors(["bake bread flour oven"])[0]
    got = conditioned_rating(sim.battles.subset(keep), x[keep], query)
    assert got.result is None and "effective votes" in got.declined and got.effective_votes < Kernel().min_effective
    unknown = conditioned_rating(sim.battles, x, vocab.vectors(["zebra quantum"])[0])
    assert unknown.result is None and "none of the question's words" in unknown.declined


def test_held_out_conditioned_beats_global(sim, vectors) -> None:  # type: ignore[no-untyped-def]
    x = vectors[2]
    no_intent = np.full(len(sim.prompts), -1)
    report = held_out(sim.battles, x, no_intent, seed=0, max_test=300)
    cond, glob = report.methods["prompt-conditioned"], report.methods["global"]
    assert cond["log_likelihood"] > glob["log_likelihood"]
    assert cond["accuracy"] > glob["accuracy"]
    assert report.test_votes == 300 and "seed 0" in report.split
    # the planted topic as the intent: the per-intent fit beats the global one too
    per_topic = held_out(sim.battles, x, sim.topic, seed=0, max_test=300)
    assert per_topic.methods["per intent"]["log_likelihood"] > glob["log_likelihood"]


def test_incremental_assignment_and_refit_rule(sim, vectors) -> None:  # type: ignore[no-untyped-def]
    vocab, _counts, x = vectors
    fitted = sim.topic != 2  # the model knows topics 0 and 1 only
    model, _found = fit_topics(x[fitted], None, vocab, k_top=2, k_sub=1, seed=0)
    same = simulate_topics(200, seed=7)
    same_x = vocab.vectors([p for p, t in zip(same.prompts, same.topic) if t != 2])
    new = assign(model, same_x)
    assert refit_due(model, new) == ""
    truth_same = same.topic[same.topic != 2]
    assert adjusted_rand_index(truth_same, new.topic) >= ARI_THRESHOLD
    drift = assign(model, vocab.vectors([p for p, t in zip(same.prompts, same.topic) if t == 2]))
    assert "farther from every topic" in refit_due(model, drift)
    assert "new prompts since the refit" in refit_due(
        model, assign(model, x[fitted][: int(0.6 * fitted.sum())]), RefitRule(refit_growth=0.5)
    )
    assert refit_due(None, new) == "no topic model yet"


def test_projection_keeps_topics_apart() -> None:
    sim = simulate_topics(900, seed=3)
    # the vocabulary (60 words) projected onto 48 directions: the projection's noise (about 1/sqrt(48) in
    # each cosine) costs some of the recovery, so the bar is lower (16 directions: ARI about 0.5)
    vocab = Vocabulary.fit(sim.prompts, dim=48)
    assert vocab.projection is not None
    x = vocab.vectors(sim.prompts)
    assert x.shape == (900, 48) and np.allclose(np.linalg.norm(x, axis=1), 1.0, atol=1e-5)
    _, found = fit_topics(x, None, vocab, k_top=3, k_sub=1, seed=0)
    assert adjusted_rand_index(sim.topic, found.topic) >= 0.85


def test_embeddings_from_an_openai_compatible_endpoint() -> None:
    from evaluators.arena.topics import embed
    from tests.arena_engine.embeddings_server import embeddings_server

    with embeddings_server() as (url, seen):
        x = embed(url, "test-embedder", ["bake bread", "python python error", "zebra"], batch=2)
        # by index, not in the order answered; unit length: (1, 0, 0, 0.5) / sqrt(1.25) ...
        assert np.allclose(x[0], np.array([2, 0, 0, 0.5]) / np.sqrt(4.25))
        assert np.allclose(x[1], np.array([0, 3, 0, 0.5]) / np.sqrt(9.25))
        assert np.allclose(x[2], [0, 0, 0, 1])
        assert [len(body["input"]) for body in seen] == [2, 1] and seen[0]["model"] == "test-embedder"
        with pytest.raises(RuntimeError, match="embeddings endpoint"):
            embed(url + "/elsewhere", "test-embedder", ["bread"])
