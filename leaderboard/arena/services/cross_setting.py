"""The ratings task's per-setting boards: the Search Arena's votes and the plain-chat setting's, each
fitted on its own votes and both anchored on one model voted on in both (``evaluators.arena.cross_setting``),
so that the findings page can compare each model with and without search; and the paper's head-to-head
test of a side with search against a side without, per setting and intent (:func:`head_to_head`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    from evaluators.arena.head_to_head import SettingHeadToHead


def setting_reference(battles_by_setting: Mapping[str, Any]) -> str | None:
    """The model to anchor every setting's board on (each setting's counted votes as BattleArrays, read by
    the ratings task's ``vote_table(setting=...)``); None while a setting has no counted votes (the
    search setting's board is then the arena's own)."""
    from evaluators.arena.cross_setting import common_reference

    if not all(len(battles) for battles in battles_by_setting.values()):
        return None
    return common_reference(battles_by_setting, configured=settings.ARENA_REFERENCE_MODEL or None)


def head_to_head() -> dict[str, SettingHeadToHead]:
    """The paper's head-to-head test over the counted public votes (``selectors.public_votes``;
    ``evaluators.arena.head_to_head``): per setting and per primary intent, the battles between a side with search and a
    side without, by setting (``SettingHeadToHead``). A configured contestant's side is judged by its responder kind; an
    imported one's by whether its answers in the battle cite (the battle's citation count)."""
    from evaluators.arena.head_to_head import group, tally
    from leaderboard.arena.models import ArenaModel
    from leaderboard.arena.selectors import public_votes

    kinds: dict[int, str | None] = {}
    for pk, responder in ArenaModel.objects.values_list("pk", "responder"):
        kind = responder.get("kind") if isinstance(responder, dict) else None
        kinds[pk] = kind if isinstance(kind, str) and kind else None
    rows = (
        public_votes()
        .filter(valid=True)
        .values_list(
            "battle__setting",
            "battle__primary_intent",
            "winner",
            "battle__model_a_id",
            "battle__model_b_id",
            "battle__features_a__citation_count",
            "battle__features_b__citation_count",
        )
    )
    records = (
        (setting, intent, winner, (kinds[a], bool(cited_a)), (kinds[b], bool(cited_b)))
        for setting, intent, winner, a, b, cited_a, cited_b in rows.iterator(chunk_size=2000)
    )
    return dict(tally(group(records)))
