"""Rating snapshots: raw and style-controlled Bradley-Terry, per intent and language, recomputed when the
public votes change, with the vote downloads written once per snapshot. The votes are read once into
arrays (:func:`vote_table`) and each group's ratings are fitted on a slice of them.

Only the votes public figures may count are read: cast before the public cut (``selectors.public_cut``:
between one and two ARENA_PUBLIC_DELAY_SECONDS after the vote, at a boundary), so a vote changes no
snapshot, count or download until then; the periodic pass recomputes once the cut has passed new votes.
The public boards fit only the votes of battles without a pre-release variant under test, so that every
rating and count shown (wins, losses, votes, the boards that exist) follows from the public votes
download and nothing about a variant's record can be derived from them; the variant is fitted with
everyone apart, and only its own rows are kept (``RatingSnapshot.withheld``, never served) to freeze its
score at release."""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models import Max
from django.db.models.fields.json import KeyTextTransform

from leaderboard import pagecache, task_sends
from leaderboard.arena.models import ArenaModel, RatingSnapshot, TurnAttribution, Vote, VoteExclusion
from leaderboard.arena.selectors import (
    closed_battles_q,
    closed_votes_q,
    latest_fingerprint,
    public_cut,
    public_votes,
    withheld_variants,
)
from leaderboard.arena.services.cross_setting import setting_reference
from leaderboard.arena.services.kept_votes import cached_rows
from leaderboard.arena.services.rating_starts import load_starts, save_starts, start_key
from leaderboard.arena.services.vote_copy import IMPORTED_INTENT_METHOD as _IMPORTED_INTENT_METHOD

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
    task_sends.arena_compute_ratings(countdown=settings.ARENA_RATINGS_DEBOUNCE_SECONDS)


def _fingerprint(cut: dt.datetime) -> str:
    """What the snapshots are computed from, under the public cut: the votes cast before it (a pre-release
    variant's too: they are fitted for its withheld rows), their exclusions and their battles'
    attributions. Nothing newer changes it, so a fresh vote, exclusion or attribution writes no snapshot."""
    closed = Vote.objects.filter(closed_votes_q(cut))
    valid = closed.filter(valid=True)
    attributions = TurnAttribution.objects.filter(closed_battles_q(cut, "turn__battle__"))
    state = (
        valid.count(),
        valid.aggregate(m=Max("id"))["m"],
        closed.count(),
        VoteExclusion.objects.filter(vote__in=closed).aggregate(m=Max("id"))["m"],
        attributions.count(),
        attributions.aggregate(m=Max("computed_at"))["m"],
        settings.ARENA_REFERENCE_MODEL,
        settings.ARENA_MIN_VOTES,
        settings.ARENA_BOOTSTRAP_ROUNDS,
        settings.ARENA_PROPENSITY_WEIGHTS,
        settings.ARENA_STYLE_DEFINITION,
        sorted(withheld_variants()),
    )  # a release changes what is shown (and what the downloads hold)
    return hashlib.sha256(repr(state).encode()).hexdigest()


def battle_records(*, setting: str = "search") -> list[Any]:
    """The valid votes of one arena setting (the Search Arena's by default: its boards never mix in the
    plain-chat setting's) as the rating code's BattleRecords, weighted by inverse sampling propensity: a
    Python object per vote, for small uses and checks; the ratings task reads :func:`vote_table`."""
    from evaluators.arena.ratings import BattleRecord
    from leaderboard.arena.services.attribution import battle_attribution_features

    rows = (
        Vote.objects.filter(valid=True, battle__setting=setting)
        .order_by("pk")
        .values_list(
            "winner",
            "battle__model_a__name",
            "battle__model_b__name",
            "battle__features_a",
            "battle__features_b",
            "battle__propensity",
            "battle__primary_intent",
            "battle__languages",
            "battle_id",
        )
    )
    # the attribution counts join the features stored at the vote: an attribution may finish after it
    attributed = battle_attribution_features()
    return [
        BattleRecord(
            model_a=a,
            model_b=b,
            winner=winner,
            features_a={**(fa or {}), **attributed.get((battle, "a"), {})},
            features_b={**(fb or {}), **attributed.get((battle, "b"), {})},
            weight=(1.0 / p) if p else 1.0,
            intent=intent or "",
            language=(langs or [""])[0],
        )
        for winner, a, b, fa, fb, p, intent, langs, battle in rows
    ]


#: the leaderboard's vote groups besides all votes: filter key -> the battle's value (one per vote; empty: none),
#: a field path or an expression (JSON read as text: no JSON decoding per vote); the typed read's SQL
#: for them is ``vote_copy.GROUP_SQL``
GROUP_FIELDS: dict[str, Any] = {
    "intent": "battle__primary_intent",
    "language": KeyTextTransform("0", "battle__languages"),
}
#: bytes of COPY data turned into arrays at a time (``vote_copy.CHUNK_BYTES`` unless set)
_CHUNK: int | None = None


@dataclass
class VoteTable:
    """The counted votes as arrays, read from the database once: the rating code's ``BattleArrays``
    (every style feature, inverse-propensity weights), and per vote the code of its value in each group
    of ``GROUP_FIELDS`` (-1: none) and of how its intent was assigned. The groups are slices of it."""

    battles: Any  # evaluators.arena.ratings.BattleArrays
    groups: dict[str, tuple[np.ndarray, list[str]]]
    intent_method: tuple[np.ndarray, list[str]]
    #: per vote: a pre-release variant under test fought in its battle
    withheld: np.ndarray

    def public(self) -> VoteTable:
        """These votes without those of the battles of pre-release variants under test (the public boards')."""
        keep = ~self.withheld
        if keep.all():
            return self
        codes, labels = self.intent_method
        return VoteTable(
            battles=self.battles.subset(keep, share_features=True),
            groups={key: (c[keep], values) for key, (c, values) in self.groups.items()},
            intent_method=(codes[keep], labels),
            withheld=self.withheld[keep],
        )

    def slices(self) -> Iterator[tuple[str, str, np.ndarray | None]]:
        """(filter key, value, the votes' mask) for all votes (mask None), then each group's values in order."""
        yield "", "", None
        for key, (codes, values) in self.groups.items():
            for code in sorted(range(len(values)), key=values.__getitem__):
                yield key, values[code], codes == code

    def intent_methods(self, rows: np.ndarray | None) -> dict[str, int]:
        """How the intents of these votes (None: all) were assigned, as {method: votes}."""
        codes, labels = self.intent_method
        counted = np.bincount(codes if rows is None else codes[rows], minlength=len(labels))
        return {label: int(c) for label, c in zip(labels, counted.tolist()) if c}


def style_definition() -> tuple[str, ...]:
    """The style features the style-controlled ratings fit (``ARENA_STYLE_DEFINITION``: the paper's by
    default, ours as the named alternative; ``evaluators.arena.style.STYLE_DEFINITIONS``)."""
    from evaluators.arena.style import STYLE_DEFINITIONS

    try:
        return STYLE_DEFINITIONS[settings.ARENA_STYLE_DEFINITION]
    except KeyError:
        raise ValueError(
            f"LEADERBOARD_ARENA_STYLE_DEFINITION: {settings.ARENA_STYLE_DEFINITION!r} is not one of "
            f"{', '.join(STYLE_DEFINITIONS)}"
        ) from None


def vote_table(*, setting: str = "search", cut: dt.datetime | None = None, cached: bool = False) -> VoteTable:
    """The valid votes of one arena setting (the Search Arena's by default) cast before ``cut`` (None:
    all), those of pre-release variants under test included and marked, as a :class:`VoteTable`, in
    vote order. The votes come from one binary COPY straight into typed arrays (``vote_copy``): per vote
    the model ids (int32), the outcome (int8), the propensity, three int16 group codes and the style
    features of both sides in float32 (2 x 13 for the paper's definition: 104 bytes), never a Python
    object. The attribution counts join the features stored at the vote (an attribution may finish
    after it).

    ``cached``: the rows read last time for this setting and style definition are kept on disk
    (``kept_votes.cached_rows``) and only the votes that entered or changed since are read (PostgreSQL's
    triggers log the changes). The table is the same either way (same votes, same order)."""
    from leaderboard.arena.services.attribution import battle_attribution_features
    from leaderboard.arena.services.vote_copy import read_votes

    style_names = style_definition()
    attributed = battle_attribution_features()
    if cached:
        rows = cached_rows(setting, cut, style_names, attributed, chunk_bytes=_CHUNK)
    else:
        rows = read_votes(setting, cut, style_names, attributed=attributed, chunk_bytes=_CHUNK)
    return _table(rows, style_names)


def _table(rows: Any, style_names: tuple[str, ...]) -> VoteTable:
    """A :class:`VoteTable` of ``vote_copy.VoteRows``: model ids numbered as ``BattleArrays.from_records``
    numbers them, the withheld votes marked."""
    from evaluators.arena.rating_types import BattleArrays, first_appearance

    names = dict(ArenaModel.objects.values_list("pk", "name"))
    size = max([*names, int(rows.a.max()) if len(rows) else 0, int(rows.b.max()) if len(rows) else 0]) + 1
    hidden = np.zeros(size, dtype=bool)
    hidden[list(ArenaModel.objects.filter(prerelease=True, released_at__isnull=True).values_list("pk", flat=True))] = (
        True
    )
    withheld = hidden[rows.a]
    withheld |= hidden[rows.b]
    # numbered straight from the ids, in order of first appearance, as BattleArrays.from_records numbers them
    order, renumber = first_appearance(rows.a, rows.b, size)
    code = renumber.astype(np.int32)
    battles = BattleArrays(
        [names[int(i)] for i in order.tolist()],
        code[rows.a],
        code[rows.b],
        rows.outcome,
        rows.fa,
        rows.fb,
        style_names,
        rows.weight,
    )
    return VoteTable(
        battles=battles,
        groups={key: (rows.codes[key], rows.labels[key]) for key in GROUP_FIELDS},
        intent_method=(rows.codes["method"], rows.labels["method"]),
        withheld=withheld,
    )


def reference_model(battles: Any) -> str | None:
    """The configured reference (ARENA_REFERENCE_MODEL) when these votes (BattleRecords or
    BattleArrays) include it, else None: the rating code then anchors on the best-connected
    well-estimated model (``auto_reference``) and names it; never a model picked by its name."""
    from evaluators.arena.rating_types import BattleArrays

    names = (
        set(battles.models)
        if isinstance(battles, BattleArrays)
        else {r.model_a for r in battles} | {r.model_b for r in battles}
    )
    return settings.ARENA_REFERENCE_MODEL if settings.ARENA_REFERENCE_MODEL in names else None


#: how the intents of imported battles were assigned: they came with the released dataset
IMPORTED_INTENT_METHOD = _IMPORTED_INTENT_METHOD


def _withheld_rows(whole: VoteTable, config: Any, withheld: set[str], *, anchor: str | None) -> list[dict[str, Any]]:
    """The rows of the pre-release variants under test, fitted with every vote of the board (theirs
    included) and anchored on the public board's anchor model at the same rating, so that they are on the
    scale of the board shown; [] when no variant fought on this board."""
    from evaluators.arena.ratings import rate

    if not whole.withheld.any():
        return []
    rows: list[dict[str, Any]] = rate(
        whole.battles, replace(config, reference=anchor or config.reference), withheld=withheld
    ).withheld_dicts()
    return rows


def _board_config(kind: str, reference: str | None, style_features: tuple[str, ...]) -> Any:
    """How a board is rated: raw or style-controlled (``kind``), the site's settings."""
    from evaluators.arena.ratings import RatingConfig

    return RatingConfig(
        reference=reference,
        auto_reference=True,
        bootstrap_rounds=settings.ARENA_BOOTSTRAP_ROUNDS,
        seed=0,
        interval="bootstrap",
        style_control=kind == "style",
        use_weights=settings.ARENA_PROPENSITY_WEIGHTS,
        min_votes=settings.ARENA_MIN_VOTES,
        style_features=style_features,
    )


def ratings_compute(*, force: bool = False, now: dt.datetime | None = None) -> int:
    """Raw and style-controlled snapshots for the public votes (module doc: cast before the public cut at
    ``now``, no pre-release variant under test) and per intent and language. Returns how many snapshots
    were written (0 when nothing changed since the last).

    The pre-release variants under test (``selectors.withheld_variants``) are kept out of the public fits
    altogether: a shown model's rating, wins, losses and votes come from the votes anyone can download,
    so subtracting reveals nothing of a variant's record. For each whole board (all votes, and each
    setting's) the variants are also fitted with everyone (``rate(withheld=...)``), and only their own
    rows are kept, in ``RatingSnapshot.withheld``: never served, read by the sampler and at release."""
    from evaluators.arena.ratings import rate
    from leaderboard.arena import exports

    cut = public_cut(now)
    fingerprint = _fingerprint(cut)
    if not force and RatingSnapshot.objects.filter(fingerprint=fingerprint).exists():
        exports.files_write(
            fingerprint, cut=cut
        )  # nothing when they are there (written before this version, or removed)
        return 0
    previous = latest_fingerprint()
    # the downloads first: once the snapshots below exist (the download looks for its fingerprint's
    # files), so do their files
    exports.files_write(fingerprint, overwrite=force, cut=cut)
    withheld = withheld_variants()
    everyone = vote_table(cut=cut, cached=True)
    table = everyone.public()
    n_excluded = public_votes(cut).filter(valid=False).count()
    # each setting's board, both anchored on one model voted on in both, so that ratings compare across them
    chat_everyone = vote_table(setting="chat", cut=cut, cached=True)
    chat = chat_everyone.public()
    common = setting_reference({"search": table.battles, "chat": chat.battles})
    # (filter key, value, the public votes, the group's rows, all votes of the whole board: None for a group)
    starts, fits = load_starts(table.battles.feature_names), {}  # each board's last fit: the next one starts there
    groups: list[tuple[str, str, VoteTable, np.ndarray | None, VoteTable | None]] = [
        (key, value, table, rows, None if rows is not None else everyone) for key, value, rows in table.slices()
    ]
    if len(chat.battles):
        groups += [("setting", "search", table, None, everyone), ("setting", "chat", chat, None, chat_everyone)]
    snapshots = []
    for filter_key, filter_value, source, rows, whole in groups:
        subset = source.battles if rows is None else source.battles.subset(rows, share_features=True)
        if not len(subset):  # a group of withheld battles only is no board: it would say they exist
            continue
        methods = source.intent_methods(rows)
        for kind in ("raw", "style"):
            reference = common if filter_key == "setting" and common else reference_model(subset)
            config = _board_config(kind, reference, table.battles.feature_names)
            board = start_key(kind, filter_key, filter_value)
            result = rate(subset, config, withheld=withheld, start=starts.get(board))
            fits[board] = result.fitted
            apart = (
                _withheld_rows(whole, config, withheld, anchor=result.anchor.get("model") or None)
                if whole is not None
                else []
            )
            snapshots.append(
                RatingSnapshot(
                    kind=kind,
                    filter_key=filter_key,
                    filter_value=filter_value,
                    result=result.public_dict(),
                    withheld=apart,
                    n_votes=len(subset),
                    n_excluded=n_excluded,
                    fingerprint=fingerprint,
                    config={**config.to_dict(), "intent_methods": methods, "public_cut": cut.isoformat()},
                )
            )
    RatingSnapshot.objects.bulk_create(snapshots)
    save_starts(table.battles.feature_names, fits)
    # the home page's card, the profiles and the models index show these (bulk_create sends no signal)
    pagecache.boards_changed()
    exports.files_prune(keep=[fingerprint, previous])  # the previous set may still be being downloaded
    return len(snapshots)
