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
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, Iterator

import numpy as np
from django.conf import settings
from django.db.models import Max
from django.db.models.fields.json import KeyTextTransform

from leaderboard import pagecache, queues
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


def _fingerprint(cut: dt.datetime) -> str:
    """What the snapshots are computed from, under the public cut: the votes cast before it (a pre-release
    variant's too: they are fitted for its withheld rows), their exclusions and their battles'
    attributions. Nothing newer changes it, so a fresh vote, exclusion or attribution writes no snapshot."""
    closed = Vote.objects.filter(closed_votes_q(cut))
    valid = closed.filter(valid=True)
    attributions = TurnAttribution.objects.filter(closed_battles_q(cut, "turn__battle__"))
    state = (valid.count(), valid.aggregate(m=Max("id"))["m"], closed.count(),
             VoteExclusion.objects.filter(vote__in=closed).aggregate(m=Max("id"))["m"],
             attributions.count(), attributions.aggregate(m=Max("computed_at"))["m"],
             settings.ARENA_REFERENCE_MODEL, settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS, settings.ARENA_PROPENSITY_WEIGHTS,
             settings.ARENA_STYLE_DEFINITION,
             sorted(withheld_variants()))  # a release changes what is shown (and what the downloads hold)
    return hashlib.sha256(repr(state).encode()).hexdigest()


def battle_records(*, setting: str = "search") -> list[Any]:
    """The valid votes of one arena setting (the Search Arena's by default: its boards never mix in the
    plain-chat setting's) as the rating code's BattleRecords, weighted by inverse sampling propensity: a
    Python object per vote, for small uses and checks; the ratings task reads :func:`vote_table`."""
    from evaluators.arena.ratings import BattleRecord
    from leaderboard.arena.services.attribution import battle_attribution_features

    rows = Vote.objects.filter(valid=True, battle__setting=setting).order_by("pk").values_list(
        "winner", "battle__model_a__name", "battle__model_b__name", "battle__features_a", "battle__features_b",
        "battle__propensity", "battle__primary_intent", "battle__languages", "battle_id")
    # the attribution counts join the features stored at the vote: an attribution may finish after it
    attributed = battle_attribution_features()
    return [BattleRecord(model_a=a, model_b=b, winner=winner, features_a={**(fa or {}), **attributed.get((battle, "a"), {})},
                         features_b={**(fb or {}), **attributed.get((battle, "b"), {})},
                         weight=(1.0 / p) if p else 1.0, intent=intent or "", language=(langs or [""])[0])
            for winner, a, b, fa, fb, p, intent, langs, battle in rows]


#: the leaderboard's vote groups besides all votes: filter key -> the battle's value (one per vote; empty: none),
#: a field path or an expression (JSON read as text: no JSON decoding per vote)
GROUP_FIELDS: dict[str, Any] = {"intent": "battle__primary_intent", "language": KeyTextTransform("0", "battle__languages")}
#: votes read from the database per round trip (a server-side cursor)
_CHUNK = 5_000


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
        return VoteTable(battles=self.battles.subset(keep), groups={key: (c[keep], values) for key, (c, values) in self.groups.items()},
                         intent_method=(codes[keep], labels), withheld=self.withheld[keep])

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


class _Codes:
    """Strings to small integer codes, in order of first appearance; empty or None: -1."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self._of: dict[str, int] = {}

    def __call__(self, value: str | None) -> int:
        if not value:
            return -1
        code = self._of.get(value)
        if code is None:
            code = self._of[value] = len(self.values)
            self.values.append(value)
        return code


def style_definition() -> tuple[str, ...]:
    """The style features the style-controlled ratings fit (``ARENA_STYLE_DEFINITION``: the paper's by
    default, ours as the named alternative; ``evaluators.arena.style.STYLE_DEFINITIONS``)."""
    from evaluators.arena.style import STYLE_DEFINITIONS

    try:
        return STYLE_DEFINITIONS[settings.ARENA_STYLE_DEFINITION]
    except KeyError:
        raise ValueError(f"LEADERBOARD_ARENA_STYLE_DEFINITION: {settings.ARENA_STYLE_DEFINITION!r} is not one of "
                         f"{', '.join(STYLE_DEFINITIONS)}") from None


def vote_table(*, setting: str = "search", cut: dt.datetime | None = None) -> VoteTable:
    """The valid votes of one arena setting (the Search Arena's by default) cast before ``cut`` (None:
    all), those of pre-release variants under test included and marked, as a :class:`VoteTable`, in vote order, read in chunks through a server-side
    cursor straight into preallocated arrays: per vote only the arrays' entries stay (about 300 bytes
    with the style features), never a Python object. The attribution counts join the features stored at
    the vote (an attribution may finish after it)."""
    from evaluators.arena.rating_types import OUTCOMES, BattleArrays, feature_matrix, first_appearance
    from leaderboard.arena.services.attribution import battle_attribution_features

    attributed = battle_attribution_features()
    names = dict(ArenaModel.objects.values_list("pk", "name"))
    outcome_of = {o: i for i, o in enumerate(OUTCOMES)}
    valid = Vote.objects.filter(valid=True, battle__setting=setting)
    if cut is not None:
        valid = valid.filter(closed_votes_q(cut))
    rows = valid.order_by("pk").values_list(
        "pk", "winner", "battle__model_a", "battle__model_b", "battle__propensity", "battle_id", "battle__features_a",
        "battle__features_b", KeyTextTransform("intent_method", "battle__extra"), "battle__conv_id",
        *GROUP_FIELDS.values()).iterator(chunk_size=_CHUNK)
    style_names = style_definition()
    k = len(style_names)
    size = valid.count()
    a: np.ndarray = np.empty(size, dtype=np.int64)
    b: np.ndarray = np.empty(size, dtype=np.int64)
    outcome: np.ndarray = np.empty(size, dtype=np.int64)
    method_codes: np.ndarray = np.empty(size, dtype=np.int64)
    weights: np.ndarray = np.empty(size)
    fa: np.ndarray = np.empty((size, k))
    fb: np.ndarray = np.empty((size, k))
    group_codes = {key: np.empty(size, dtype=np.int64) for key in GROUP_FIELDS}
    coders = {key: _Codes() for key in GROUP_FIELDS}
    methods = _Codes()
    filled = 0
    while chunk := list(islice(rows, _CHUNK)):
        end = filled + len(chunk)
        if end > len(a):  # votes counted after the count above: grow (rare)
            grow = max(end, len(a) + len(a) // 4)
            a, b, outcome, weights, fa, fb, method_codes = (_grown(x, grow) for x in (a, b, outcome, weights, fa, fb, method_codes))
            group_codes = {key: _grown(x, grow) for key, x in group_codes.items()}
        pks, winners, model_a, model_b, propensity, battles, features_a, features_b, method, conv, *groups = zip(*chunk)
        try:
            outcome[filled:end] = [outcome_of[w] for w in winners]
        except KeyError:
            bad = next(pk for pk, w in zip(pks, winners) if w not in outcome_of)
            raise ValueError(f"vote {bad}: winner {dict(zip(pks, winners))[bad]!r} is not one of {', '.join(OUTCOMES)}") from None
        a[filled:end], b[filled:end] = model_a, model_b
        p = np.array(propensity, dtype=float)  # None (not recorded) -> nan
        weights[filled:end] = 1.0
        drawn = p > 0
        weights[filled:end][drawn] = 1.0 / p[drawn]
        for side, features, out in (("a", features_a, fa), ("b", features_b, fb)):
            out[filled:end] = feature_matrix([{**(f or {}), **attributed[(battle, side)]} if (battle, side) in attributed else (f or {})
                                              for f, battle in zip(features, battles)], style_names)
        for key, values in zip(GROUP_FIELDS, groups):
            group_codes[key][filled:end] = [coders[key](v) for v in values]
        method_codes[filled:end] = [methods(m or (IMPORTED_INTENT_METHOD if c else "not recorded")) for m, c in zip(method, conv)]
        filled = end
    a, b, outcome, weights, fa, fb, method_codes = (x[:filled] for x in (a, b, outcome, weights, fa, fb, method_codes))
    ids = np.array(sorted(names), dtype=np.int64)
    dense = np.zeros(int(ids.max()) + 1 if len(ids) else 1, dtype=np.int64)
    dense[ids] = np.arange(len(ids))
    hidden = np.zeros(len(dense), dtype=bool)
    hidden[[pk for pk in ArenaModel.objects.filter(prerelease=True, released_at__isnull=True).values_list("pk", flat=True)
            if pk < len(dense)]] = True
    withheld = hidden[a] | hidden[b]
    a, b = dense[a], dense[b]
    order, renumber = first_appearance(a, b, len(ids))  # the models numbered as BattleArrays.from_records numbers them
    battles_arrays = BattleArrays([names[int(ids[i])] for i in order.tolist()], renumber[a], renumber[b], outcome, fa, fb,
                                  style_names, weights)
    return VoteTable(battles=battles_arrays, groups={key: (codes[:filled], coders[key].values) for key, codes in group_codes.items()},
                     intent_method=(method_codes, methods.values), withheld=withheld)


def _grown(x: np.ndarray, size: int) -> np.ndarray:
    out = np.empty((size, *x.shape[1:]), dtype=x.dtype)
    out[:len(x)] = x
    return out


def reference_model(battles: Any) -> str | None:
    """The configured reference (ARENA_REFERENCE_MODEL) when these votes (BattleRecords or
    BattleArrays) include it, else None: the rating code then anchors on the best-connected
    well-estimated model (``auto_reference``) and names it; never a model picked by its name."""
    from evaluators.arena.rating_types import BattleArrays

    names = set(battles.models) if isinstance(battles, BattleArrays) else {r.model_a for r in battles} | {r.model_b for r in battles}
    return settings.ARENA_REFERENCE_MODEL if settings.ARENA_REFERENCE_MODEL in names else None


#: how the intents of imported battles were assigned: they came with the released dataset
IMPORTED_INTENT_METHOD = "as released with the imported dataset"


def _withheld_rows(whole: VoteTable, config: Any, withheld: set[str], *, anchor: str | None) -> list[dict[str, Any]]:
    """The rows of the pre-release variants under test, fitted with every vote of the board (theirs
    included) and anchored on the public board's anchor model at the same rating, so that they are on the
    scale of the board shown; [] when no variant fought on this board."""
    from evaluators.arena.ratings import rate

    if not whole.withheld.any():
        return []
    rows: list[dict[str, Any]] = rate(whole.battles, replace(config, reference=anchor or config.reference), withheld=withheld).withheld_dicts()
    return rows


def ratings_compute(*, force: bool = False, now: dt.datetime | None = None) -> int:
    """Raw and style-controlled snapshots for the public votes (module doc: cast before the public cut at
    ``now``, no pre-release variant under test) and per intent and language. Returns how many snapshots
    were written (0 when nothing changed since the last).

    The pre-release variants under test (``selectors.withheld_variants``) are kept out of the public fits
    altogether: a shown model's rating, wins, losses and votes come from the votes anyone can download,
    so subtracting reveals nothing of a variant's record. For each whole board (all votes, and each
    setting's) the variants are also fitted with everyone (``rate(withheld=...)``), and only their own
    rows are kept, in ``RatingSnapshot.withheld``: never served, read by the sampler and at release."""
    from evaluators.arena.ratings import RatingConfig, rate
    from leaderboard.arena import exports

    cut = public_cut(now)
    fingerprint = _fingerprint(cut)
    if not force and RatingSnapshot.objects.filter(fingerprint=fingerprint).exists():
        exports.files_write(fingerprint, cut=cut)  # nothing when they are there (written before this version, or removed)
        return 0
    previous = latest_fingerprint()
    # the downloads first: once the snapshots below exist (the download looks for its fingerprint's
    # files), so do their files
    exports.files_write(fingerprint, overwrite=force, cut=cut)
    withheld = withheld_variants()
    everyone = vote_table(cut=cut)
    table = everyone.public()
    n_excluded = public_votes(cut).filter(valid=False).count()
    # each setting's board, both anchored on one model voted on in both, so that ratings compare across them
    chat_everyone = vote_table(setting="chat", cut=cut)
    chat = chat_everyone.public()
    common = setting_reference({"search": table.battles, "chat": chat.battles})
    # (filter key, value, the public votes, the group's rows, all votes of the whole board: None for a group)
    groups: list[tuple[str, str, VoteTable, np.ndarray | None, VoteTable | None]] = [
        (key, value, table, rows, None if rows is not None else everyone) for key, value, rows in table.slices()]
    if len(chat.battles):
        groups += [("setting", "search", table, None, everyone), ("setting", "chat", chat, None, chat_everyone)]
    snapshots = []
    for filter_key, filter_value, source, rows, whole in groups:
        subset = source.battles if rows is None else source.battles.subset(rows)
        if not len(subset):  # a group of withheld battles only is no board: it would say they exist
            continue
        methods = source.intent_methods(rows)
        for kind in ("raw", "style"):
            reference = common if filter_key == "setting" and common else reference_model(subset)
            config = RatingConfig(reference=reference, auto_reference=True, bootstrap_rounds=settings.ARENA_BOOTSTRAP_ROUNDS, seed=0,
                                  interval="bootstrap", style_control=kind == "style", use_weights=settings.ARENA_PROPENSITY_WEIGHTS,
                                  min_votes=settings.ARENA_MIN_VOTES, style_features=table.battles.feature_names)
            result = rate(subset, config, withheld=withheld)
            apart = _withheld_rows(whole, config, withheld, anchor=result.anchor.get("model") or None) if whole is not None else []
            snapshots.append(RatingSnapshot(kind=kind, filter_key=filter_key, filter_value=filter_value, result=result.public_dict(),
                                            withheld=apart,
                                            n_votes=len(subset), n_excluded=n_excluded, fingerprint=fingerprint,
                                            config={**config.to_dict(), "intent_methods": methods, "public_cut": cut.isoformat()}))
    RatingSnapshot.objects.bulk_create(snapshots)
    # the home page's card, the profiles and the models index show these (bulk_create sends no signal)
    pagecache.boards_changed()
    exports.files_prune(keep=[fingerprint, previous])  # the previous set may still be being downloaded
    return len(snapshots)


