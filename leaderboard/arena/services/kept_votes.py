"""The arena's kept vote rows: the votes the ratings read last time, kept on disk per database, setting
and style definition (``VAR_DIR/arena-votes``), and updated from PostgreSQL's log of changed votes
(``VoteChange``, triggers of migration 0012) so that a ratings run reads only the votes that entered or
changed since the last."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import numpy as np
from django.db.models import Max, Q

from leaderboard.arena.models import Vote, VoteChange
from leaderboard.arena.services.rating_starts import kept_key, vote_cache_dir

#: the format of the kept rows (a change makes every kept file unreadable: they are read again)
_CACHE_FORMAT = 4
#: how long the vote changes are kept (``VoteChange``); kept rows older than this are read again
VOTE_CHANGES_KEPT = dt.timedelta(days=7)
#: changes logged this long before a read are looked at again by the next (a change whose transaction
#: committed after the read, with a lower log id than one the read saw): a transaction that writes a
#: change and commits more than this later may go unseen until the rows are read again
_CHANGE_MARGIN = dt.timedelta(minutes=1)


def cached_rows(
    setting: str,
    cut: dt.datetime | None,
    style_names: tuple[str, ...],
    attributed: dict[tuple[int, str], dict[str, float]],
    *,
    chunk_bytes: int | None = None,
) -> Any:
    """The votes of ``ratings.vote_table``, from the rows kept on disk plus those that entered or changed since.

    The kept rows are the votes closed under the cut of their read with ids up to the highest read.
    Every later change to such a vote's inputs (its validity or winner, its battle's models, intent,
    languages, features, turns or attributions, or its deletion) is logged by PostgreSQL triggers
    (``VoteChange``, migration 0012). So the update is: the changed votes dropped from the kept rows, then
    one read of the votes not kept (ids above the kept ones, or closed since the last cut) and of the
    changed ones that still count, merged in vote order, and the whole kept for next time. Everything is
    read again when there are no kept rows, the cut went back, they are older than the change log
    (``VOTE_CHANGES_KEPT``), the number of votes (of any kind) with ids up to the highest kept is not
    what it was at the last read (an index count, for what no trigger sees: a rollback, a TRUNCATE,
    another database; also a deleted vote), or the database is not PostgreSQL (no triggers)."""
    from django.db import connection

    from leaderboard.arena.services.vote_copy import read_votes

    if connection.vendor != "postgresql":
        return read_votes(setting, cut, style_names, attributed=attributed, chunk_bytes=chunk_bytes)
    key = kept_key(style_names)  # per database and style definition
    path = vote_cache_dir() / f"{setting}-{key}.npz"
    now = dt.datetime.now(dt.UTC)
    # read before the votes: a change during their read is seen next time
    seen = VoteChange.objects.aggregate(m=Max("id"))["m"] or 0
    kept = _kept_meta(path)
    if kept is not None and not _still_valid(kept, cut, now):
        kept = None
    if kept is not None:
        meta = kept
        old_cut = dt.datetime.fromisoformat(meta["cut"]) if meta["cut"] else None
        since = Q(id__gt=meta["change"]) | Q(at__gte=dt.datetime.fromisoformat(meta["read_at"]) - _CHANGE_MARGIN)
        changed = sorted(
            {v for v in VoteChange.objects.filter(since).values_list("vote_id", flat=True) if v <= meta["last"]}
        )
        new = read_votes(
            setting,
            cut,
            style_names,
            after=meta["last"],
            old_cut=old_cut,
            again=changed,
            attributed=attributed,
            chunk_bytes=chunk_bytes,
        )
        rows = _merged(path, meta["labels"], changed, new)
        fresh = bool(changed) or len(new) > 0
    else:
        rows = read_votes(setting, cut, style_names, attributed=attributed, chunk_bytes=chunk_bytes)
        fresh = True
    if fresh or kept is None or kept["change"] != seen:
        last = int(rows.vote.max()) if len(rows) else (kept["last"] if kept else 0)
        _keep(path, rows, cut=cut, change=seen, now=now, last=last)
    VoteChange.objects.filter(at__lt=now - VOTE_CHANGES_KEPT).delete()
    return rows


def _kept_meta(path: Path) -> dict[str, Any] | None:
    """The kept rows' description (their cut, the last vote id, the change log id...) when ``path`` holds
    rows of the current format; the arrays themselves are read when merged, a column at a time."""
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as stored:
            meta = json.loads(str(stored["meta"]))
            return meta if meta["format"] == _CACHE_FORMAT and "vote" in stored.files else None
    except (OSError, ValueError, KeyError):
        return None


def _still_valid(meta: dict[str, Any], cut: dt.datetime | None, now: dt.datetime) -> bool:
    """Whether kept rows can be updated rather than read again: the same kind of cut, not gone back, newer
    than the change log, and as many votes with ids up to the highest kept as at their read (votes gone
    without a trigger, as by a rollback, TRUNCATE or another database, or deleted, change that count)."""
    old_cut = dt.datetime.fromisoformat(meta["cut"]) if meta["cut"] else None
    return not (
        (meta["cut"] is None) != (cut is None)
        or (cut is not None and old_cut is not None and old_cut > cut)
        or dt.datetime.fromisoformat(meta["read_at"]) < now - VOTE_CHANGES_KEPT + dt.timedelta(hours=1)
        or Vote.objects.filter(pk__lte=meta["last"]).count() != meta["below"]
    )


def _keep(path: Path, rows: Any, *, cut: dt.datetime | None, change: int, now: dt.datetime, last: int) -> None:
    """The rows written to ``path`` for the next read (whole, then renamed into place)."""
    meta = {
        "format": _CACHE_FORMAT,
        "cut": cut.isoformat() if cut else None,
        "change": change,
        "read_at": now.isoformat(),
        "last": last,
        "below": Vote.objects.filter(pk__lte=last).count(),
        "labels": rows.labels,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez(partial, meta=np.array(json.dumps(meta)), **rows.arrays())
    partial.replace(path)


def _merged(path: Any, labels: dict[str, list[str]], changed: list[int], new: Any) -> Any:
    """The kept rows (file ``path``) less the ``changed`` votes and the newly read ones, as one set in vote
    order, read from the file a column at a time (never the kept rows twice in memory); the new rows'
    group codes renumbered into the kept ``labels`` (a label first seen now is added at the end)."""
    from leaderboard.arena.services.vote_copy import VoteRows

    labels = {key: list(values) for key, values in labels.items()}
    arrays = new.arrays()
    for key, values in new.labels.items():
        for value in values:
            if value not in labels[key]:
                labels[key].append(value)
        recode = np.array([*(labels[key].index(v) for v in values), -1], dtype=np.int16)  # -1 (none) stays -1
        arrays[f"code_{key}"] = recode[new.codes[key]]
    joined: dict[str, np.ndarray] = {}
    with np.load(path, allow_pickle=False) as stored:
        vote = stored["vote"]
        keep = ~np.isin(vote, np.array(changed, dtype=np.int64)) if changed else None
        kept_ids = vote if keep is None else vote[keep]
        # a changed vote, or one closed since the last cut with a lower id: sorted into place
        order = None
        if len(kept_ids) and len(new) and new.vote.min() < kept_ids.max():
            order = np.argsort(np.concatenate([kept_ids, new.vote]), kind="stable")
        del vote, kept_ids
        for name in arrays:
            column = stored[name] if keep is None else stored[name][keep]
            column = np.concatenate([column, arrays[name]]) if len(new) else column
            joined[name] = column if order is None else column[order]
    return VoteRows.from_arrays(joined, labels)
