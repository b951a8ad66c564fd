"""The arena's topic explorer and prompt-conditioned ranking, on the site's data (the maths is
``evaluators.arena.topics``).

Only the first prompts of public, counted votes are read: the votes public figures count
(``selectors.public_votes``: cast before the public cut, no pre-release variant under test) that are
valid, in the search setting. So a prompt appears as an example, or weighs in a topic's ratings or a
conditioned ranking, only once its vote is in the public figures, and never for a battle of a variant
under test.

:func:`topics_compute` (the Celery task ``arena_compute_topics``, on the ratings' beat) writes a
:class:`TopicSnapshot` when those votes changed: a full refit (TF-IDF vocabulary or endpoint embeddings,
two-level k-means, c-TF-IDF labels, each topic's ratings, the held-out comparison) when
``evaluators.arena.topics.refit_due`` says so, else the new prompts assigned to the last refit's topics
(labels kept, shares, examples and ratings recomputed). The vectors, topics and battles go to a file in
the default storage that the next update and the prompt-conditioned ranking
(``prompt_ranking.ratings_for_prompt``) read.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db.models import Count, Max, OuterRef, QuerySet, Subquery, Sum

from evaluators.arena.conditioned import Kernel, held_out
from evaluators.arena.rating_types import OUTCOMES, BattleArrays, RatingConfig
from evaluators.arena.topics import Assignment, RefitRule, TopicModel, Vocabulary, assign, embed, fit_topics, refit_due
from leaderboard.arena.models import Setting, TopicSnapshot, Turn, Vote
from leaderboard.arena.selectors import public_cut, public_votes

#: example prompts shown per topic, and their length on the page
EXAMPLES = 3
EXAMPLE_CHARS = 300
_PREFIX = "arena-topics"
TFIDF = "tfidf"


def representation() -> str:
    """What prompts are turned into: endpoint embeddings when ARENA_TOPICS_EMBEDDINGS_URL is set, else TF-IDF."""
    return f"embeddings: {settings.ARENA_TOPICS_EMBEDDINGS_MODEL}" if settings.ARENA_TOPICS_EMBEDDINGS_URL else TFIDF


def kernel() -> Kernel:
    return Kernel(
        neighbours=settings.ARENA_TOPICS_NEIGHBOURS,
        min_similarity=settings.ARENA_TOPICS_MIN_SIMILARITY,
        bandwidth=settings.ARENA_TOPICS_BANDWIDTH,
        min_effective=settings.ARENA_TOPICS_MIN_EFFECTIVE_VOTES,
    )


def _embed(texts: list[str]) -> np.ndarray:
    return embed(settings.ARENA_TOPICS_EMBEDDINGS_URL, settings.ARENA_TOPICS_EMBEDDINGS_MODEL, texts)


# --- the public battles --------------------------------------------------------------------------


def _public_counted(cut: dt.datetime) -> QuerySet[Vote]:
    return public_votes(cut).filter(valid=True, battle__setting=Setting.SEARCH)


def _fingerprint(votes: QuerySet[Vote]) -> str:
    state = (
        votes.aggregate(n=Count("pk"), m=Max("pk"), s=Sum("battle_id")),
        representation(),
        settings.ARENA_TOPICS_TOP,
        settings.ARENA_TOPICS_SUB,
        settings.ARENA_BOOTSTRAP_ROUNDS,
        settings.ARENA_MIN_VOTES,
    )
    return hashlib.sha256(repr(state).encode()).hexdigest()


@dataclass
class PublicBattles:
    """The public counted votes, by battle id: first prompts, the votes as arrays, intents, months."""

    ids: np.ndarray
    prompts: list[str]
    battles: BattleArrays
    intents: np.ndarray
    intent_names: list[str]
    months: list[str]


def public_battles(votes: QuerySet[Vote]) -> PublicBattles:
    first = Turn.objects.filter(battle=OuterRef("battle_id"), index=0).values("prompt")[:1]
    rows = list(
        votes.annotate(prompt=Subquery(first))
        .order_by("battle_id")
        .values_list(
            "battle_id",
            "winner",
            "battle__model_a__name",
            "battle__model_b__name",
            "battle__primary_intent",
            "created_at",
            "prompt",
        )
    )
    models: dict[str, int] = {}
    intents: dict[str, int] = {}
    code = {o: i for i, o in enumerate(OUTCOMES)}
    a = np.array([models.setdefault(r[2], len(models)) for r in rows], dtype=np.int64)
    b = np.array([models.setdefault(r[3], len(models)) for r in rows], dtype=np.int64)
    return PublicBattles(
        ids=np.array([r[0] for r in rows], dtype=np.int64),
        prompts=[r[6] or "" for r in rows],
        battles=BattleArrays(list(models), a, b, np.array([code[r[1]] for r in rows], dtype=np.int64)),
        intents=np.array([intents.setdefault(r[4], len(intents)) if r[4] else -1 for r in rows], dtype=np.int64),
        intent_names=list(intents),
        months=[r[5].strftime("%Y-%m") for r in rows],
    )


# --- the stored vectors ------------------------------------------------------------------------


@dataclass
class Stored:
    """What a snapshot's file holds: per public battle (sorted by id) its vector, topic, subtopic, cosine
    to its topic and whether it was assigned after the refit; and the votes themselves."""

    ids: np.ndarray
    x: np.ndarray
    topic: np.ndarray
    subtopic: np.ndarray
    similarity: np.ndarray
    later: np.ndarray
    battles: BattleArrays


def _write(stored: Stored, fingerprint: str) -> str:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        ids=stored.ids,
        x=stored.x,
        topic=stored.topic,
        subtopic=stored.subtopic,
        similarity=stored.similarity,
        later=stored.later,
        a=stored.battles.a,
        b=stored.battles.b,
        outcome=stored.battles.outcome,
        models=np.array(stored.battles.models, dtype=str),
    )
    name = f"{_PREFIX}/{fingerprint[:32]}.npz"
    if default_storage.exists(name):
        default_storage.delete(name)
    return default_storage.save(name, ContentFile(buffer.getvalue()))


@lru_cache(maxsize=2)
def read_stored(name: str) -> Stored:
    """A snapshot's file (kept for the process: a file name is never reused for other contents)."""
    with default_storage.open(name, "rb") as handle:
        data = np.load(io.BytesIO(handle.read()))
        return Stored(
            ids=data["ids"],
            x=data["x"],
            topic=data["topic"],
            subtopic=data["subtopic"],
            similarity=data["similarity"],
            later=data["later"],
            battles=BattleArrays([str(m) for m in data["models"]], data["a"], data["b"], data["outcome"]),
        )


# --- the computation ---------------------------------------------------------------------------


def topics_compute(*, now: dt.datetime | None = None, force: bool = False) -> TopicSnapshot | None:
    """A new snapshot when the public counted votes changed (module doc); None when they did not or there are none."""
    cut = public_cut(now)
    votes = _public_counted(cut)
    fingerprint = _fingerprint(votes)
    last = TopicSnapshot.objects.order_by("-computed_at").first()
    if not force and last is not None and last.fingerprint == fingerprint:
        return None
    data = public_battles(votes)
    if not len(data.ids):
        return None
    kind = representation()
    reason = (
        ""
        if last is not None and last.representation == kind
        else (
            "no topic model yet" if last is None else f"the representation changed from {last.representation} to {kind}"
        )
    )
    if not reason and last is not None and not default_storage.exists(last.vectors):
        reason = "the last snapshot's vectors file is missing from the storage"
    model: TopicModel | None = None
    x = np.zeros((0, 0), dtype=np.float32)
    found: Assignment | None = None
    later = np.zeros(len(data.ids), dtype=bool)
    if not reason and last is not None:
        model = TopicModel.from_dict(last.model)
        x, found, later = _assigned_to_last_refit(model, read_stored(last.vectors), data)
        since = Assignment(topic=found.topic[later], subtopic=found.subtopic[later], similarity=found.similarity[later])
        reason = refit_due(
            model,
            since,
            RefitRule(refit_growth=settings.ARENA_TOPICS_REFIT_GROWTH, drift_share=settings.ARENA_TOPICS_DRIFT_SHARE),
        )
    refit = bool(reason)
    if refit:
        model, x, found = _refit(data)
        later[:] = False
    assert model is not None and found is not None
    stored = Stored(
        ids=data.ids,
        x=x,
        topic=found.topic,
        subtopic=found.subtopic,
        similarity=found.similarity,
        later=later,
        battles=data.battles,
    )
    result = _result(model, stored, data)
    name = _write(stored, fingerprint)
    snapshot = TopicSnapshot.objects.create(
        fingerprint=fingerprint,
        refit=refit,
        reason=reason,
        representation=kind,
        n_battles=len(data.ids),
        model=model.to_dict(),
        result=result,
        vectors=name,
        public_cut=cut,
    )
    _prune(keep=[name, last.vectors if last is not None else ""])
    return snapshot


def _assigned_to_last_refit(
    model: TopicModel, old: Stored, data: PublicBattles
) -> tuple[np.ndarray, Assignment, np.ndarray]:
    """Without a refit: the battles the last snapshot knew keep their vectors and topics, the new ones are
    embedded and assigned to the last refit's topics. Returns the vectors, the assignment and which
    battles were assigned after the refit."""
    at = np.searchsorted(old.ids, data.ids)
    at = np.minimum(at, len(old.ids) - 1)
    known = old.ids[at] == data.ids if len(old.ids) else np.zeros(len(data.ids), dtype=bool)
    fresh = np.flatnonzero(~known)
    new_x = prompt_vectors(model, [data.prompts[i] for i in fresh])
    x = np.zeros((len(data.ids), old.x.shape[1]), dtype=np.float32)
    x[known] = old.x[at[known]]
    x[fresh] = new_x
    placed = assign(model, new_x)
    found = Assignment(
        topic=np.zeros(len(data.ids), dtype=np.int64),
        subtopic=np.zeros(len(data.ids), dtype=np.int64),
        similarity=np.zeros(len(data.ids)),
    )
    for field in ("topic", "subtopic", "similarity"):
        getattr(found, field)[known] = getattr(old, field)[at[known]]
        getattr(found, field)[fresh] = getattr(placed, field)
    later = np.zeros(len(data.ids), dtype=bool)
    later[known] = old.later[at[known]]
    later[fresh] = True
    return x, found, later


def prompt_vectors(model: TopicModel, texts: list[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, model.top.shape[1]), dtype=np.float32)
    return model.vocabulary.vectors(texts) if model.vocabulary is not None else _embed(texts)


def _refit(data: PublicBattles) -> tuple[TopicModel, np.ndarray, Assignment]:
    n = len(data.prompts)
    vocabulary = Vocabulary.fit(data.prompts, min_df=2 if n >= 50 else 1)
    counts = vocabulary.counts(data.prompts)
    embedded = bool(settings.ARENA_TOPICS_EMBEDDINGS_URL)
    x = _embed(data.prompts) if embedded else vocabulary.vectors(counts)
    k_top = max(1, min(settings.ARENA_TOPICS_TOP, n // settings.ARENA_TOPICS_MIN_SIZE))
    model, found = fit_topics(
        x,
        counts,
        None if embedded else vocabulary,
        k_top=k_top,
        k_sub=settings.ARENA_TOPICS_SUB,
        min_topic=settings.ARENA_TOPICS_MIN_SIZE,
        seed=0,
        label_words=vocabulary.words,
    )
    return model, x, found


def rating_config(battles: BattleArrays, *, full: bool) -> RatingConfig:
    from leaderboard.arena.services.ratings import reference_model

    return RatingConfig(
        reference=reference_model(battles),
        auto_reference=True,
        bootstrap_rounds=settings.ARENA_BOOTSTRAP_ROUNDS,
        seed=0,
        interval="bootstrap" if full else "sandwich",
        min_votes=settings.ARENA_MIN_VOTES,
        robustness=full,
    )


def _ratings(battles: BattleArrays, rows: np.ndarray, *, full: bool) -> dict[str, Any]:
    from evaluators.arena.ratings import rate

    subset = battles.subset(rows)
    result = rate(subset, rating_config(subset, full=full))
    return {
        "models": [
            {
                "name": m.name,
                "rating": m.rating,
                "ci_low": m.ci_low,
                "ci_high": m.ci_high,
                "rank_ub": m.rank_ub,
                "votes": m.votes,
                "ranked": m.rankable and m.bounded and not m.provisional,
                "note": m.note,
            }
            for m in result.models
        ],
        "robustness": result.robustness,
        "method": result.method,
    }


def _examples(prompts: list[str], rows: np.ndarray, similarity: np.ndarray) -> list[str]:
    """The prompts nearest the topic's centre (distinct, shortened)."""
    out: list[str] = []
    for i in rows[np.argsort(-similarity[rows], kind="stable")]:
        text = " ".join(prompts[i].split())
        text = text if len(text) <= EXAMPLE_CHARS else text[: EXAMPLE_CHARS - 1] + "…"
        if text and text not in out:
            out.append(text)
        if len(out) == EXAMPLES:
            break
    return out


def _result(model: TopicModel, stored: Stored, data: PublicBattles) -> dict[str, Any]:
    n = len(stored.ids)
    months, month_of = np.unique(
        np.array(data.months, dtype=str), return_inverse=True
    )  # sorted months, each battle's index
    per_month = np.bincount(month_of, minlength=len(months))
    topics: list[dict[str, Any]] = []
    for j in range(len(model.top)):
        rows = np.flatnonzero(stored.topic == j)
        in_month = np.bincount(month_of[rows], minlength=len(months))
        subtopics = []
        for s in range(len(model.sub[j])):
            sub_rows = rows[stored.subtopic[rows] == s]
            subtopics.append(
                {
                    "label": model.sub_labels[j][s] if s < len(model.sub_labels[j]) else [],
                    "battles": len(sub_rows),
                    "share": len(sub_rows) / max(len(rows), 1),
                    "examples": _examples(data.prompts, sub_rows, stored.similarity)[:1],
                    "ratings": _ratings(stored.battles, sub_rows, full=False) if len(sub_rows) else None,
                }
            )
        topics.append(
            {
                "label": model.labels[j],
                "battles": len(rows),
                "share": len(rows) / n,
                "over_time": [
                    {"month": m, "battles": int(k), "share": float(k / t) if t else 0.0}
                    for m, k, t in zip(months.tolist(), in_month, per_month)
                ],
                "examples": _examples(data.prompts, rows, stored.similarity),
                "ratings": _ratings(stored.battles, rows, full=True) if len(rows) else None,
                "subtopics": subtopics if len(subtopics) > 1 else [],
            }
        )
    topics.sort(key=lambda t: -int(t["battles"]))
    evaluation = held_out(stored.battles, stored.x, data.intents, seed=0, kernel=kernel()).to_dict()
    return {
        "topics": topics,
        "battles": n,
        "evaluation": evaluation,
        "kernel": kernel().__dict__,
        "label_kind": "keywords by class-based TF-IDF (not written by a model)",
        "refit_rule": {
            "growth_percent": round(100 * settings.ARENA_TOPICS_REFIT_GROWTH),
            "drift_percent": round(100 * settings.ARENA_TOPICS_DRIFT_SHARE),
        },
    }


def _prune(keep: list[str]) -> None:
    try:
        _, files = default_storage.listdir(_PREFIX)
    except FileNotFoundError:
        return
    for name in files:
        path = f"{_PREFIX}/{name}"
        if path not in keep:
            default_storage.delete(path)
