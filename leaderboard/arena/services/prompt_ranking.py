"""The arena's prompt-conditioned ranking, on the site's data (the maths is ``evaluators.arena.conditioned``):
:func:`ratings_for_prompt` ranks the models for a typed question by the kernel-weighted fit over the
nearest public battles of the newest topic snapshot (``topics``: the vectors it stored), or says why it
declines. The question is not stored, logged or cached here: it is turned into a vector, compared, and
dropped.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from evaluators.arena.conditioned import conditioned_rating
from evaluators.arena.topics import TopicModel
from leaderboard.arena.models import TopicSnapshot
from leaderboard.arena.services.topics import kernel, prompt_vectors, rating_config, read_stored, representation


@dataclass
class ForPrompt:
    """A conditioned ranking for a typed question (``rows``), or why there is none (``declined``)."""

    declined: str
    effective_votes: float
    neighbours: int
    rows: list[dict[str, Any]]
    method: str
    computed_at: dt.datetime | None
    min_effective_votes: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "declined": self.declined,
            "effective_votes": self.effective_votes,
            "neighbours": self.neighbours,
            "models": self.rows,
            "method": self.method,
            "min_effective_votes": self.min_effective_votes,
            "computed_at": self.computed_at.isoformat() if self.computed_at else None,
        }


def _declined(why: str, computed_at: dt.datetime | None) -> ForPrompt:
    """No ranking, and why (before a battle was compared)."""
    return ForPrompt(why, 0.0, 0, [], "", computed_at, kernel().min_effective)


def ratings_for_prompt(question: str) -> ForPrompt:
    """The ranking fitted on the public battles nearest ``question`` (module doc); the question is not kept."""
    k = kernel()
    question = (question or "").strip()[: settings.ARENA_MAX_PROMPT_CHARS]
    snapshot = TopicSnapshot.objects.order_by("-computed_at").first()
    if not question:
        return _declined("type a question to see the models ranked on the battles nearest to it", None)
    if snapshot is None:
        return _declined(
            "there are no public voted battles to compare the question with yet; come back once votes are counted", None
        )
    try:
        stored = read_stored(snapshot.vectors)
    except FileNotFoundError:
        return _declined("the battles' vectors are being recomputed; try again in a few minutes", snapshot.computed_at)
    model = TopicModel.from_dict(snapshot.model)
    try:
        query = prompt_vectors(model, [question])[0]
    except RuntimeError:
        return _declined(
            "the embeddings service did not answer, so the question could not be compared; try again in a minute",
            snapshot.computed_at,
        )
    got = conditioned_rating(stored.battles, stored.x, query, k, rating_config(stored.battles, full=False))
    if got.result is None:
        return ForPrompt(
            got.declined, got.effective_votes, got.neighbours, [], "", snapshot.computed_at, k.min_effective
        )
    rows = [
        {
            "name": m.name,
            "rating": m.rating,
            "ci_low": m.ci_low,
            "ci_high": m.ci_high,
            "rank_ub": m.rank_ub,
            "votes": m.votes,
            "ranked": m.rankable and m.bounded,
        }
        for m in got.result.models
    ]
    method = (
        f"{got.result.method}; each of the {got.neighbours} nearest public battles weighted by exp(-(1 - cosine) / "
        f"{k.bandwidth:g}) (cosine at least {k.min_similarity:g}, at most {k.neighbours} battles; {representation()})"
    )
    return ForPrompt("", got.effective_votes, got.neighbours, rows, method, snapshot.computed_at, k.min_effective)
