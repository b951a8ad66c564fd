"""The arena's published figures that are computed from every public vote (the findings page's head-to-head
test and prompt distribution, the transparency report) or fitted again on every read (each board's
agreement with people: bootstrap rounds), kept in the cache so that a page or an API call reads them
instead of scanning millions of votes or refitting.

A figure is kept under the latest ratings' fingerprint (``selectors.latest_fingerprint``: the public votes,
their exclusions and attributions the ratings were computed from), the public cut (``selectors.public_cut``) and
the contestants' state (a release or a retirement shows at once), so it is as of the latest ratings, under the
same cut as every other public figure; the agreement, which also
reads the static boards, under the boards' page-cache generation too (``pagecache``: it changes whenever a board
does). The periodic pass computes them all right after the ratings (``published_warm``, from ``arena_maintain``),
so that no request has to; a request computes one itself only when the cache lost it (Redis restarted) or
before the first ratings (no fingerprint: nothing is kept, every read computes)."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache

from leaderboard import pagecache
from leaderboard.arena.models import ArenaModel
from leaderboard.arena.selectors import latest_fingerprint, public_cut

T = TypeVar("T")
VERSION = 1


def _ttl() -> int:
    """Kept for two public-cut windows (a day with no delay): a new cut is a new key before then."""
    delay = int(settings.ARENA_PUBLIC_DELAY_SECONDS)
    return 2 * delay if delay > 0 else 24 * 3600


def _contestants() -> str:
    """The contestants' state (a few hundred rows): a release, a retirement or a new contestant changes what is published."""
    rows = ArenaModel.objects.order_by("pk").values_list("pk", "enabled", "prerelease", "released_at", "retired_at", "catalog_model_id")
    return hashlib.sha256(repr(list(rows)).encode()).hexdigest()[:16]


def _key(name: str, fingerprint: str, *, boards: bool) -> str:
    cut = int(public_cut().timestamp()) if int(settings.ARENA_PUBLIC_DELAY_SECONDS) > 0 else 0
    generation = pagecache.quietly(lambda: cache.get(pagecache.GENERATION_KEY), "") if boards else ""
    return f"arena-published:v{VERSION}:{name}:{fingerprint}:{cut}:{_contestants()}:{generation}"


def published(name: str, compute: Callable[[], T], *, boards: bool = False, refresh: bool = False) -> T:
    """The figure ``name`` (computed by ``compute``) as kept under the latest ratings and the public cut
    (module doc); ``boards``: it reads the static boards too; ``refresh``: compute and keep it again."""
    fingerprint = latest_fingerprint()
    if not fingerprint:
        return compute()
    key = _key(name, fingerprint, boards=boards)
    if not (refresh or _refresh):
        found = pagecache.quietly(lambda: cache.get(key))
        if found is not None:
            return found  # type: ignore[no-any-return]
    value = compute()
    pagecache.quietly(lambda: cache.set(key, value, _ttl()))
    return value


def transparency() -> dict[str, Any]:
    from leaderboard.arena.transparency import transparency_report

    return published("transparency", transparency_report)


def head_to_head() -> dict[str, Any]:
    from leaderboard.arena.settings_comparison import head_to_head as computed

    return published("head-to-head", computed)


def distribution() -> dict[str, Any]:
    from leaderboard.arena.distribution import prompt_distribution

    return published("distribution", prompt_distribution)


def agreement() -> dict[str, Any]:
    from leaderboard.arena.agreement import board_agreement

    return published("agreement", board_agreement, boards=True)


def findings() -> dict[str, Any]:
    """The findings page's figures read from the latest ratings (style effects by group, the two settings compared)."""
    from leaderboard.arena import presentation, selectors, settings_comparison

    def compute() -> dict[str, Any]:
        snapshots = selectors.latest_snapshot_set()
        return {"findings": presentation.findings(snapshots), "comparison": settings_comparison.comparison(snapshots)}

    return published("findings", compute)


def published_warm() -> int:
    """Compute every published figure again and keep it (the periodic pass, after the ratings); returns how many."""
    figures = (transparency, head_to_head, distribution, agreement, findings)
    with _refreshing():
        for figure in figures:
            figure()
    return len(figures)


_refresh = False


@contextmanager
def _refreshing() -> Iterator[None]:
    """Within: every figure read is computed again and kept (``published_warm``)."""
    global _refresh
    _refresh = True
    try:
        yield
    finally:
        _refresh = False
