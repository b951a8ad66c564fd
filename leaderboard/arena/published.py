"""The arena's published figures that are computed from every public vote (the findings page's head-to-head
test and prompt distribution, the transparency report) or fitted again on every read (each board's
agreement with people: bootstrap rounds), kept in the cache so that a page or an API call reads them
instead of scanning millions of votes or refitting.

A figure is kept under the latest ratings' fingerprint (``selectors.latest_fingerprint``: the public votes,
their exclusions and attributions under the public cut the ratings were computed from) and the contestants'
state (a release or a retirement shows at once), so it is as of the latest ratings, like the boards: a new cut
that lets in new votes changes it once the ratings are computed again, not before (a key with the cut in it
would make every request at a cut's boundary count the votes until the periodic pass came). A figure of a
higher app that also reads its own rows (the boards' agreement with people, ``boards.agreement``) is kept under
its state too (``extra_key``) and registered here at start (``register``), so that the periodic pass keeps it
as well without the arena importing that app. The periodic pass computes them all right after the ratings
(``published_warm``, from ``arena_maintain``),
so that no request has to; a request computes one itself only when the cache lost it (Redis restarted) or
before the first ratings (no fingerprint: nothing is kept, every read computes)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.core.cache import cache

from leaderboard import pagecache
from leaderboard.arena.models import ArenaModel
from leaderboard.arena.selectors import latest_fingerprint

T = TypeVar("T")
VERSION = 1


#: how long a figure is kept: new ratings (a new fingerprint) make a new key well before then
TTL = 7 * 24 * 3600


def _contestants() -> str:
    """The contestants' state (a few hundred rows): a release, a retirement or a new contestant changes what is
    published."""
    rows = ArenaModel.objects.order_by("pk").values_list(
        "pk", "enabled", "prerelease", "released_at", "retired_at", "catalog_model_id"
    )
    return hashlib.sha256(repr(list(rows)).encode()).hexdigest()[:16]


def _key(name: str, fingerprint: str, extra_key: str) -> str:
    return f"arena-published:v{VERSION}:{name}:{fingerprint}:{_contestants()}:{extra_key}"


def published(name: str, compute: Callable[[], T], *, extra_key: str = "", refresh: bool = False) -> T:
    """The figure ``name`` (computed by ``compute``) as kept under the latest ratings and the public cut
    (module doc); ``extra_key``: the state of whatever else it reads (the static boards' rows for the
    agreement); ``refresh``: compute and keep it again."""
    fingerprint = latest_fingerprint()
    if not fingerprint:
        return compute()
    key = _key(name, fingerprint, extra_key)
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


def findings() -> dict[str, Any]:
    """The findings page's figures read from the latest ratings (style effects by group, the two settings compared)."""
    from leaderboard.arena import presentation, selectors, settings_comparison

    def compute() -> dict[str, Any]:
        snapshots = selectors.latest_snapshot_set()
        return {"findings": presentation.findings(snapshots), "comparison": settings_comparison.comparison(snapshots)}

    return published("findings", compute)


#: the figures higher apps publish under the arena's ratings (``register``): read with their own key, warmed here
_registered: list[Callable[[], object]] = []


def register(figure: Callable[[], object]) -> None:
    """Have the periodic pass keep ``figure`` too (a zero-argument reader that calls ``published``): the boards'
    agreement with people registers at start (``boards/apps.py``)."""
    if figure not in _registered:
        _registered.append(figure)


def published_warm() -> int:
    """Compute every published figure again and keep it (the periodic pass, after the ratings); returns how many."""
    figures = (transparency, head_to_head, distribution, findings, *_registered)
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
