"""The arena's published figures that are computed from every public vote (the findings page's head-to-head
test and prompt distribution, the transparency report) or fitted again on every read (each board's
agreement with people: bootstrap rounds), kept in the cache so that a page or an API call reads them
instead of scanning millions of votes or refitting.

A figure is kept under the latest ratings' fingerprint (``selectors.latest_fingerprint``: the public votes,
their exclusions and attributions under the public cut the ratings were computed from) and the contestants'
state (a release or a retirement shows at once), so it is as of the latest ratings, like the boards: a new cut
that lets in new votes changes it once the ratings are computed again, not before (a key with the cut in it
would make every request at a cut's boundary count the votes until the periodic pass came); the agreement, which
also reads the static boards, under the boards' state too (their rows and current dataset versions). The periodic pass computes them all right after the ratings (``published_warm``, from ``arena_maintain``),
so that no request has to; a request computes one itself only when the cache lost it (Redis restarted) or
before the first ratings (no fingerprint: nothing is kept, every read computes)."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.core.cache import cache
from django.db.models import Count, Max

from leaderboard import pagecache
from leaderboard.arena.models import ArenaModel
from leaderboard.arena.selectors import latest_fingerprint

T = TypeVar("T")
VERSION = 1


#: how long a figure is kept: new ratings (a new fingerprint) make a new key well before then
TTL = 7 * 24 * 3600


def _contestants() -> str:
    """The contestants' state (a few hundred rows): a release, a retirement or a new contestant changes what is published."""
    rows = ArenaModel.objects.order_by("pk").values_list("pk", "enabled", "prerelease", "released_at", "retired_at", "catalog_model_id")
    return hashlib.sha256(repr(list(rows)).encode()).hexdigest()[:16]


def _boards() -> str:
    """The static boards' state: their rows (how many, the newest, the latest finish) and their current dataset
    versions with the judges' validations. Any change to a row (a new run, a visibility change refiles the model's
    rows) changes it; the page cache's generation would change with every queued run too."""
    from leaderboard.catalog.models import DatasetVersion
    from leaderboard.submissions.models import LeaderboardEntry

    rows = LeaderboardEntry.objects.aggregate(n=Count("id"), last=Max("id"), at=Max("finished_at"))
    versions = list(DatasetVersion.objects.filter(is_current=True).order_by("pk").values_list("pk", "judge_validations"))
    return hashlib.sha256(repr((sorted(rows.items()), versions)).encode()).hexdigest()[:16]


def _key(name: str, fingerprint: str, *, boards: bool) -> str:
    return f"arena-published:v{VERSION}:{name}:{fingerprint}:{_contestants()}:{_boards() if boards else ''}"


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
    pagecache.quietly(lambda: cache.set(key, value, TTL))
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
