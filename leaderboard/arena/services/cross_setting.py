"""The ratings task's per-setting boards: the Search Arena's votes and the plain-chat setting's, each
fitted on its own votes and both anchored on one model voted on in both (``evaluators.arena.cross_setting``),
so that the findings page can compare each model with and without search."""
from __future__ import annotations

from typing import Any, Mapping

from django.conf import settings


def setting_reference(battles_by_setting: Mapping[str, Any]) -> str | None:
    """The model to anchor every setting's board on (each setting's counted votes as BattleArrays, read by
    the ratings task's ``vote_table(setting=...)``); None while a setting has no counted votes (the
    search setting's board is then the arena's own)."""
    from evaluators.arena.cross_setting import common_reference

    if not all(len(battles) for battles in battles_by_setting.values()):
        return None
    return common_reference(battles_by_setting, configured=settings.ARENA_REFERENCE_MODEL or None)
