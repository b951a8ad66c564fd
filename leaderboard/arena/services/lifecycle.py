"""A contestant's life after it is added: retired (no longer drawn, with the reason said in words, its
latest ratings frozen at that moment, its counted votes kept in every later fit) and, for anonymous
pre-release testing, released: when a provider releases a model, every variant it tested has its score
frozen and published (those not released are retired with that reason). The transparency report
(``leaderboard.arena.transparency``) reads what these write."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from leaderboard import pagecache
from leaderboard.arena.models import ArenaModel
from leaderboard.arena.services.common import ArenaRefused
from leaderboard.arena.services.ratings import ratings_schedule

#: the figures of a leaderboard row that are frozen
FROZEN_KEYS = ("rating", "ci_low", "ci_high", "rank_ub", "votes", "provisional", "note")


def frozen_rating(name: str) -> dict[str, Any] | None:
    """The model's rows (raw and style-controlled, all votes) of the latest ratings, with when they
    were computed and from how many votes; None when it has none yet. A pre-release variant under test
    has its rows in the snapshots' withheld part (fitted with everyone, never shown): read from there,
    on the same scale as the public rows of that snapshot."""
    from leaderboard.arena.selectors import latest_snapshots

    board = latest_snapshots()
    frozen: dict[str, Any] = {}
    for kind, snapshot in (("raw", board.raw), ("style", board.style)):
        if snapshot is None:
            continue
        rows = [*snapshot.result.get("models", []), *(snapshot.withheld or [])]
        row = next((m for m in rows if m.get("name") == name), None)
        if row is not None:
            frozen[kind] = {key: row.get(key) for key in FROZEN_KEYS}
            frozen["computed_at"] = snapshot.computed_at.isoformat()
            frozen["n_votes"] = snapshot.n_votes
    return frozen or None


def _locked_model(name: str) -> ArenaModel:
    model = ArenaModel.objects.select_for_update().filter(name=name).first()
    if model is None:
        raise ArenaRefused(f"name: there is no arena model called {name!r}", field="name", status=404)
    return model


def model_retire(*, name: str, reason: str) -> ArenaModel:
    """Stop drawing the model for good: ``retired_at`` now, the reason, its latest ratings frozen. Its
    battles and counted votes are kept (and stay in the fit). Retiring twice is refused."""
    reason = (reason or "").strip()
    if not reason:
        raise ArenaRefused("reason: say why the model is retired (it is published)", field="reason")
    with transaction.atomic():
        model = _locked_model(name)
        if model.retired_at is not None:
            raise ArenaRefused(
                f"name: {name} was already retired on {model.retired_at:%Y-%m-%d} ({model.retire_reason})",
                field="name",
                status=409,
            )
        model.retired_at, model.retire_reason, model.enabled = timezone.now(), reason, False
        model.final_rating = frozen_rating(name)
        model.save(update_fields=["retired_at", "retire_reason", "enabled", "final_rating"])
        pagecache.boards_changed()
    return model


def prerelease_release(*, name: str) -> list[ArenaModel]:
    """The provider of pre-release variant ``name`` releases it: every variant of that provider still
    under pre-release testing gets ``released_at`` and its frozen score (published from now on: the
    withheld rows of the latest ratings); the others are retired as "tested before release, not
    released". The ratings are then recomputed (what is shown changed), with the variants on the board
    and their battles in the downloads. Returns the variants released."""

    now = timezone.now()
    with transaction.atomic():
        released = _locked_model(name)
        if not released.prerelease:
            raise ArenaRefused(f"name: {name} is not a pre-release variant", field="name")
        if released.released_at is not None:
            raise ArenaRefused(
                f"name: {name} was already released on {released.released_at:%Y-%m-%d}", field="name", status=409
            )
        variants = list(
            ArenaModel.objects.select_for_update()
            .filter(organization=released.organization, prerelease=True, released_at__isnull=True)
            .order_by("name")
        )
        for variant in variants:
            variant.released_at = now
            variant.final_rating = frozen_rating(variant.name)
            fields = ["released_at", "final_rating"]
            if variant.pk != released.pk and variant.retired_at is None:
                variant.retired_at, variant.enabled = now, False
                variant.retire_reason = f"tested before release, not released (the provider released {released.name})"
                fields += ["retired_at", "enabled", "retire_reason"]
            variant.save(update_fields=fields)
        pagecache.boards_changed()
        transaction.on_commit(ratings_schedule)
    return variants
