"""The ratings task's per-setting boards: the Search Arena's votes and the plain-chat setting's, each
fitted on its own votes and both anchored on one model voted on in both (``evaluators.arena.cross_setting``),
so that the findings page can compare each model with and without search."""
from __future__ import annotations

from typing import Any, Sequence

from django.conf import settings

from leaderboard.arena.models import Setting


def setting_groups(search_records: Sequence[Any], chat_records: Sequence[Any]) -> tuple[dict[str, list[Any]], str | None]:
    """Each setting's counted votes (read by the ratings task: ``battle_records(setting=...)``) and the
    model to anchor both on; nothing while the plain-chat setting has no counted votes (the search
    setting's board is then the arena's own)."""
    from evaluators.arena.cross_setting import common_reference

    if not chat_records:
        return {}, None
    by_setting = {Setting.SEARCH.value: list(search_records), Setting.CHAT.value: list(chat_records)}
    return by_setting, common_reference(by_setting, configured=settings.ARENA_REFERENCE_MODEL or None)
