"""Refusals the arena's pages and API show, the prompt check and the per-voter rate limits."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from leaderboard.arena.identity import Voter
from leaderboard.arena.models import Turn

CITATION_STYLES = ("standardized", "original")


class ArenaRefused(ValueError):
    """A request the arena does not accept. ``status`` is the HTTP status to answer with; ``field``
    names the input at fault. The message never names a hidden model."""

    status = 400

    def __init__(self, message: str, *, field: str | None = None, status: int | None = None):
        super().__init__(message)
        self.field = field
        if status is not None:
            self.status = status


class NotYourBattle(ArenaRefused):
    status = 403


class NotReady(ArenaRefused):
    status = 409


class AlreadyVoted(ArenaRefused):
    status = 409


class RateLimited(ArenaRefused):
    status = 429


# --- prompts -----------------------------------------------------------------------------------


def prompt_clean(prompt: Any) -> str:
    """The prompt, stripped; refuses empty, huge and binary ones with a message naming the field."""
    if not isinstance(prompt, str):
        raise ArenaRefused("prompt: must be text", field="prompt")
    text = prompt.strip()
    if not text:
        raise ArenaRefused("prompt: is empty; write a question", field="prompt")
    if len(text) > settings.ARENA_MAX_PROMPT_CHARS:
        raise ArenaRefused(
            f"prompt: {len(text):,} characters is over the limit of {settings.ARENA_MAX_PROMPT_CHARS:,}", field="prompt"
        )
    if any(ord(ch) < 32 and ch not in "\n\r\t" for ch in text) or any(
        0xD800 <= ord(ch) <= 0xDFFF or ord(ch) == 0xFFFE or ord(ch) == 0xFFFF for ch in text
    ):
        raise ArenaRefused("prompt: contains binary or control characters; paste plain text", field="prompt")
    return text


def rate_check(*, voter: Voter, what: str) -> None:
    """At most ARENA_ACTIONS_PER_MINUTE prompts per voter and ARENA_ACTIONS_PER_MINUTE_PER_IP per
    client address per minute, counted in one query (so clearing cookies does not reset the
    address's count). Votes are counted, separately, in the vote's one read: ``_vote_read``."""
    minute = timezone.now() - dt.timedelta(minutes=1)
    mine, address = (
        Q(battle__voter_hash=voter.hash),
        Q(battle__ip_hash=voter.ip_hash) if voter.ip_hash else Q(pk__in=[]),
    )
    counts = Turn.objects.filter(mine | address, created_at__gte=minute).aggregate(
        mine=Count("id", filter=mine), address=Count("id", filter=address)
    )
    rate_refuse(counts["mine"], what)
    if counts["address"] >= settings.ARENA_ACTIONS_PER_MINUTE_PER_IP:
        raise RateLimited(
            f"too many {what}s from your network address in the last minute ({counts['address']}); "
            "wait a moment and try again"
        )


def rate_refuse(recent: int, what: str) -> None:
    if recent >= settings.ARENA_ACTIONS_PER_MINUTE:
        raise RateLimited(f"too many {what}s in the last minute ({recent}); wait a moment and try again")


class BattleMissing(ArenaRefused):
    status = 404
