"""Rating snapshots: raw and style-controlled Bradley-Terry, per intent and language, recomputed when the
votes change, with the vote downloads written once per snapshot."""
from __future__ import annotations

import hashlib
import time
from collections import Counter
from typing import Any, Sequence

from django.conf import settings
from django.db.models import Max

from leaderboard import queues
from leaderboard.arena.models import RatingSnapshot, TurnAttribution, Vote, VoteExclusion
from leaderboard.arena.selectors import latest_fingerprint
from leaderboard.arena.services.cross_setting import setting_groups

# --- ratings -----------------------------------------------------------------------------------

_last_schedule = 0.0


def ratings_schedule() -> None:
    """Ask for a recomputation ARENA_RATINGS_DEBOUNCE_SECONDS from now, at most once per window per
    process: votes in between are covered by it (and the task skips when nothing changed). A vote
    landing just as the task runs is picked up by the next vote's task or the periodic pass."""
    global _last_schedule
    now = time.monotonic()
    if now - _last_schedule < settings.ARENA_RATINGS_DEBOUNCE_SECONDS:
        return
    _last_schedule = now
    queues.arena_compute_ratings(countdown=settings.ARENA_RATINGS_DEBOUNCE_SECONDS)


def _fingerprint() -> str:
    valid = Vote.objects.filter(valid=True)
    state = (valid.count(), valid.aggregate(m=Max("id"))["m"], VoteExclusion.objects.aggregate(m=Max("id"))["m"],
             TurnAttribution.objects.count(), TurnAttribution.objects.aggregate(m=Max("computed_at"))["m"],
             settings.ARENA_REFERENCE_MODEL, settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS, settings.ARENA_PROPENSITY_WEIGHTS)
    return hashlib.sha256(repr(state).encode()).hexdigest()


def battle_records(*, setting: str = "search") -> list[Any]:
    """The valid votes of one arena setting (the Search Arena's by default: its boards never mix in the
    plain-chat setting's) as the rating code's BattleRecords, weighted by inverse sampling propensity."""
    from evaluators.arena.ratings import BattleRecord
    from leaderboard.arena.services.attribution import battle_attribution_features

    rows = Vote.objects.filter(valid=True, battle__setting=setting).values_list(
        "winner", "battle__model_a__name", "battle__model_b__name", "battle__features_a", "battle__features_b",
        "battle__propensity", "battle__primary_intent", "battle__languages", "battle_id")
    # the attribution counts join the features stored at the vote: an attribution may finish after it
    attributed = battle_attribution_features()
    return [BattleRecord(model_a=a, model_b=b, winner=winner, features_a={**(fa or {}), **attributed.get((battle, "a"), {})},
                         features_b={**(fb or {}), **attributed.get((battle, "b"), {})},
                         weight=(1.0 / p) if p else 1.0, intent=intent or "", language=(langs or [""])[0])
            for winner, a, b, fa, fb, p, intent, langs, battle in rows]


def reference_model(records: Sequence[Any]) -> str | None:
    """The configured reference (ARENA_REFERENCE_MODEL) when these votes include it, else None: the
    rating code then anchors on the best-connected well-estimated model (``auto_reference``) and
    names it; never a model picked by its name."""
    names = {r.model_a for r in records} | {r.model_b for r in records}
    return settings.ARENA_REFERENCE_MODEL if settings.ARENA_REFERENCE_MODEL in names else None


#: how the intents of imported battles were assigned: they came with the released dataset
IMPORTED_INTENT_METHOD = "as released with the imported dataset"


def _intent_methods() -> dict[tuple[str, str], dict[str, int]]:
    """How the intents of the counted votes were assigned (the classifier's method: a judge or the
    keyword rules), as {method: votes} for all votes and for each intent and language filter."""
    methods: dict[tuple[str, str], Counter[str]] = {}
    rows = Vote.objects.filter(valid=True, battle__setting="search").values_list("battle__primary_intent", "battle__languages",
                                                       "battle__extra__intent_method", "battle__conv_id")
    for intent_value, langs, method, conv_id in rows:
        label = method or (IMPORTED_INTENT_METHOD if conv_id else "not recorded")
        for key in (("", ""), ("intent", intent_value or ""), ("language", (langs or [""])[0])):
            methods.setdefault(key, Counter())[label] += 1
    return {key: dict(counter) for key, counter in methods.items()}


def ratings_compute(*, force: bool = False) -> int:
    """Raw and style-controlled snapshots for all valid votes and per intent and language. Returns
    how many snapshots were written (0 when nothing changed since the last)."""
    from evaluators.arena.ratings import RatingConfig, rate
    from leaderboard.arena import exports

    fingerprint = _fingerprint()
    if not force and RatingSnapshot.objects.filter(fingerprint=fingerprint).exists():
        exports.files_write(fingerprint)  # nothing when they are there (written before this version, or removed)
        return 0
    previous = latest_fingerprint()
    # the downloads first: once the snapshots below exist (the download looks for its fingerprint's
    # files), so do their files
    exports.files_write(fingerprint, overwrite=force)
    records = battle_records()
    n_excluded = Vote.objects.filter(valid=False).count()
    methods = _intent_methods()
    groups: list[tuple[str, str, list[Any]]] = [("", "", records)]
    for key, attr in (("intent", "intent"), ("language", "language")):
        values = sorted({getattr(r, attr) for r in records if getattr(r, attr)})
        groups += [(key, value, [r for r in records if getattr(r, attr) == value]) for value in values]
    # each setting's board, both anchored on one model voted on in both, so that ratings compare across them
    by_setting, common = setting_groups(records, battle_records(setting="chat"))
    groups += [("setting", value, subset) for value, subset in by_setting.items()]
    snapshots = []
    for filter_key, filter_value, subset in groups:
        if not subset:
            continue
        for kind in ("raw", "style"):
            reference = common if filter_key == "setting" and common else reference_model(subset)
            config = RatingConfig(reference=reference, auto_reference=True, bootstrap_rounds=settings.ARENA_BOOTSTRAP_ROUNDS, seed=0,
                                  interval="bootstrap", style_control=kind == "style", use_weights=settings.ARENA_PROPENSITY_WEIGHTS,
                                  min_votes=settings.ARENA_MIN_VOTES)
            result = rate(subset, config)
            snapshots.append(RatingSnapshot(kind=kind, filter_key=filter_key, filter_value=filter_value, result=result.to_dict(),
                                            n_votes=len(subset), n_excluded=n_excluded, fingerprint=fingerprint,
                                            config={**config.to_dict(), "intent_methods": methods.get((filter_key, filter_value), {})}))
    RatingSnapshot.objects.bulk_create(snapshots)
    exports.files_prune(keep=[fingerprint, previous])  # the previous set may still be being downloaded
    return len(snapshots)


