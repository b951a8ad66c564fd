"""The arena's transparency report (``/arena/transparency/`` and the API): reads, no writes.

Each part answers one criticism of arena leaderboards with a live figure from the database:

* ``battle_shares``: battles per model and per provider against the sampling policy's target, per
  setting: the Search Arena's battles are the report's own, the plain-chat setting's are counted apart
  (its pairs are drawn among other models, so its seats answer to another target);
* ``model_lives``: when each model was added, first counted, retired and why, its frozen final rating,
  and the counted votes it keeps in each setting's fit;
* ``exclusions_by_week``: votes excluded, by reason, per week;
* ``neighbour_flips``: for each adjacent pair on the leaderboard, how many votes would have to flip to
  swap them (``evaluators.arena.flips`` has the definition and why the search is exact);
* ``rank_spreads``: the ranks each model's interval allows, with the provisional mark;
* ``prerelease``: anonymous pre-release testing, per provider, with every tested variant's final score
  once the provider released. A variant under test is fitted apart (``ratings_compute``) and
  withheld from every public figure; the ranks and the flips here leave it out too.

Every figure counts only the battles the public cut lets in (``selectors.public_cut``, in words :func:`public_rule`):
closed (voted on, or ended without a vote) and closed before the last boundary minus one delay, so
starting, answering or voting on a battle changes nothing here at that moment. The vote figures (lives,
exclusions, flips) leave out the battles of pre-release variants under test, as the boards and the
downloads do; their battle seats are counted (not named) in ``prerelease_seats`` and per provider.

Shares come with Wilson 95% intervals. The flips are cached under the latest ratings' fingerprint (they
refit the votes a few times per pair); the rest is read on each request.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import Counter, defaultdict
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Min, Q
from django.db.models.functions import TruncWeek

from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot, Setting, VoteExclusion
from leaderboard.arena.selectors import (
    closed_battles_q,
    latest_fingerprint,
    latest_snapshots,
    public_cut,
    public_votes,
    snapshot_cut,
    withheld_variants,
)


def public_rule() -> str:
    """When a battle enters the public figures (``selectors.public_cut``), in words, with this site's delay."""
    delay = int(settings.ARENA_PUBLIC_DELAY_SECONDS)
    if delay <= 0:
        when = "as soon as it is closed (this site sets no delay)"
    else:
        step = f"{delay // 60} minutes" if delay % 60 == 0 else f"{delay} seconds"
        when = (
            f"only once it is closed and then only at the second {step} boundary (UTC) after its closing: between "
            f"{step} and twice that after it closed, together with every battle closed in the same {step}"
        )
    return (
        f"A battle counts in the arena's public figures (this report, the leaderboards and their vote counts, the "
        f"intent and language boards, citation statistics, the findings and the vote downloads) {when}. A battle is "
        f"closed when it is voted on, or when it ends without a vote (abandoned, taken as closed a day after it "
        f"started). Starting a battle, its answers and the vote change no public figure at that moment, so comparing "
        f"them before and after a battle does not tell who is in it. Battles of anonymous pre-release variants "
        f"still under test are in no public count, rating or download until their provider releases; only their "
        f"number of battle seats is shown, per provider."
    )


def share_row(count: int, total: int) -> dict[str, Any]:
    """A count as a share of ``total`` with its Wilson 95% interval."""
    from evaluators.arena.attribution import wilson

    low, high = wilson(count, total)
    return {"count": count, "share": count / total if total else 0.0, "ci_low": low, "ci_high": high}


# --- the sampling policy ------------------------------------------------------------------------


def sampling_policy() -> str:
    """The policy ``evaluators.arena.sampling`` applies, in words, with this site's settings."""
    from evaluators.arena.sampling import DEFAULT_BOOST, DEFAULT_NEW_MODEL_VOTES

    active = (
        "Active sampling is on: each pair's score is further multiplied by the mean width of the two models' 95% "
        "rating intervals (a model without one counts as the widest), so votes go where the ratings are least certain. "
        if settings.ARENA_ACTIVE_SAMPLING
        else "Active sampling is off: the interval widths play no part. "
    )
    prerelease = (
        "Anonymous pre-release variants may be drawn (the operator allows it). "
        if settings.ARENA_PRERELEASE_TESTING
        else "Anonymous pre-release variants are never drawn (the operator does not allow it). "
    )
    return (
        f"Every new battle draws one pair among the models that are enabled, not imported and not retired. Each "
        f"model has a weight set by the operator (1 unless said otherwise below), multiplied by {DEFAULT_BOOST:g} "
        f"while it "
        f"has fewer than {DEFAULT_NEW_MODEL_VOTES} counted votes, so new models catch up. Every unordered pair scores "
        f"the "
        f"product of its two weights. {active}The pair is drawn with probability its score divided by the sum of all "
        f"scores, and a fair coin decides which model is answer A. {prerelease}The target below is the share of battle "
        f"seats (two per battle) the policy gives each model now: half the probability that the drawn pair includes "
        f"it. "
        f"Observed shares cover every battle the sampler ever drew, so a model added later, or boosted while new, "
        f"differs from today's target by design; imported battles were not drawn here and are not counted. "
        f"Seats are counted per setting: the Search Arena's battles first; the plain-chat setting's apart, after "
        f"them, since its pairs are drawn only among the models that can answer without search (the same policy "
        f"over other models), so pooling them would set seats against the wrong target."
    )


def _targets(setting: str, cut: dt.datetime) -> dict[str, float]:
    """Each model's share of the setting's battle seats under the policy now (half its probability of being
    drawn), with the counted votes before the public cut (a fresh vote must not move a new model's boost here)."""
    from evaluators.arena.sampling import pair_probabilities
    from leaderboard.arena.services.battles import sampler_models

    models = sampler_models(setting, cut=cut)
    if len(models) < 2:
        return {}
    seats: dict[str, float] = defaultdict(float)
    for (x, y), probability in pair_probabilities(models, active=settings.ARENA_ACTIVE_SAMPLING).items():
        seats[x] += probability / 2
        seats[y] += probability / 2
    return dict(seats)


def _seats(battles: Any) -> Counter[int]:
    """Battle seats per model id among ``battles`` (a Battle queryset): one per side."""
    seats: Counter[int] = Counter()
    for side in ("model_a", "model_b"):
        seats.update(dict(battles.values_list(side).annotate(n=Count("id")).values_list(side, "n")))
    return seats


def battle_shares(setting: str = Setting.SEARCH, *, cut: dt.datetime | None = None) -> dict[str, Any]:
    """Battle seats per model and per provider (the maker) among the battles the sampler drew in one
    setting that the public cut lets in (now's by default), with their shares (Wilson 95%) and the
    policy's target share there now."""
    cut = public_cut() if cut is None else cut
    drawn = Battle.objects.filter(closed_battles_q(cut), conv_id__isnull=True, setting=setting)
    total = drawn.count()
    seats = _seats(drawn)
    targets = _targets(setting, cut)
    models = (
        ArenaModel.objects.filter(Q(pk__in=list(seats)) | Q(name__in=list(targets)))
        .exclude(prerelease=True, released_at__isnull=True)
        .order_by("name")
    )
    rows = []
    for model in models:
        rows.append(
            {
                "name": model.name,
                "provider": model.organization or "(not given)",
                "weight": model.weight,
                "battles": seats[model.pk],
                **share_row(seats[model.pk], 2 * total),
                "target": targets.get(model.name),
            }
        )
    hidden = ArenaModel.objects.filter(prerelease=True, released_at__isnull=True)
    hidden_seats = sum(seats[pk] for pk in hidden.values_list("pk", flat=True))
    by_provider: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = by_provider.setdefault(
            row["provider"], {"provider": row["provider"], "battles": 0, "target": None, "models": 0}
        )
        entry["battles"] += row["battles"]
        entry["models"] += 1
        if row["target"] is not None:
            entry["target"] = (entry["target"] or 0.0) + row["target"]
    providers = [{**p, **share_row(p["battles"], 2 * total)} for p in by_provider.values()]
    providers.sort(key=lambda p: (-p["battles"], p["provider"]))
    rows.sort(key=lambda r: (-r["battles"], r["name"]))
    return {
        "setting": setting,
        "battles": total,
        "seats": 2 * total,
        "models": rows,
        "providers": providers,
        "prerelease_seats": hidden_seats,
    }


# --- each model's life ----------------------------------------------------------------------------


def _counted_votes(cut: dt.datetime) -> tuple[dict[str, Counter[int]], dict[int, dt.datetime]]:
    """Per setting, per model id: its counted public votes (each setting's board fits only its own); and per
    model id the time of its first counted public vote in either."""
    counts: dict[str, Counter[int]] = {setting: Counter() for setting in Setting.values}
    first: dict[int, dt.datetime] = {}
    for side in ("battle__model_a", "battle__model_b"):
        for setting, pk, n, at in (
            public_votes(cut)
            .filter(valid=True)
            .values_list("battle__setting", side)
            .annotate(n=Count("id"), at=Min("created_at"))
            .values_list("battle__setting", side, "n", "at")
        ):
            counts[setting][pk] += n
            first[pk] = min(first.get(pk, at), at)
    return counts, first


def model_status(model: ArenaModel) -> str:
    """Where a model stands, in words."""
    if model.retired_at is not None:
        return "retired"
    if model.imported:
        return "imported (never drawn here)"
    if model.prerelease and model.released_at is None:
        return "pre-release testing"
    return "drawn" if model.enabled else "paused (not drawn)"


def model_lives(*, cut: dt.datetime | None = None) -> list[dict[str, Any]]:
    """Every model except pre-release variants not yet released (counted under ``prerelease``): added,
    first counted vote, retired and why, the final rating frozen then, and the counted votes it keeps
    in each setting's fit (retiring a model removes none), as public under the cut (now's by default)."""
    counts, first = _counted_votes(public_cut() if cut is None else cut)
    lives = []
    for model in ArenaModel.objects.exclude(prerelease=True, released_at__isnull=True).order_by("added_at", "name"):
        lives.append(
            {
                "name": model.name,
                "provider": model.organization,
                "status": model_status(model),
                "added_at": model.added_at,
                "first_counted_vote_at": first.get(model.pk),
                "retired_at": model.retired_at,
                "retire_reason": model.retire_reason,
                "final_rating": model.final_rating,
                "votes_in_fit": counts[Setting.SEARCH][model.pk],
                "chat_votes_in_fit": counts[Setting.CHAT][model.pk],
                "prerelease": model.prerelease,
                "released_at": model.released_at,
            }
        )
    return lives


# --- excluded votes -------------------------------------------------------------------------------


def exclusions_by_week(*, cut: dt.datetime | None = None) -> dict[str, Any]:
    """Per week (Monday, UTC) of the vote: public votes cast (under the cut, now's by default), votes not
    counted, and exclusions by reason (a vote may have several reasons, so the reasons can add up to more
    than the votes not counted)."""
    codes = [code for code, _ in VoteExclusion.Code.choices]
    votes = public_votes(public_cut() if cut is None else cut)
    weeks: dict[dt.date, dict[str, Any]] = defaultdict(
        lambda: {"votes": 0, "excluded": 0, "by_code": dict.fromkeys(codes, 0)}
    )
    for week, valid, n in (
        votes.annotate(week=TruncWeek("created_at")).values_list("week", "valid").annotate(n=Count("id"))
    ):
        weeks[week.date()]["votes"] += n
        if not valid:
            weeks[week.date()]["excluded"] += n
    for week, code, n in (
        VoteExclusion.objects.filter(vote__in=votes)
        .annotate(week=TruncWeek("vote__created_at"))
        .values_list("week", "code")
        .annotate(n=Count("id"))
    ):
        weeks[week.date()]["by_code"][code] = weeks[week.date()]["by_code"].get(code, 0) + n
    rows = [
        {
            "week": week,
            **data,
            "excluded_share": share_row(data["excluded"], data["votes"]),
            "reasons": [data["by_code"][c] for c in codes],
        }
        for week, data in sorted(weeks.items())
    ]
    return {"codes": codes, "labels": [label for _, label in VoteExclusion.Code.choices], "weeks": rows}


# --- ranks ----------------------------------------------------------------------------------------


def rank_spreads(snapshot: RatingSnapshot | None) -> list[dict[str, Any]]:
    """The ranks each estimable model's 95% interval allows on this board, among the models shown (not
    the pre-release variants under test): best = 1 + the models whose interval lies wholly above its own;
    worst = 1 + the other models whose upper end lies above its lower end. Models with a note (no finite
    rating) have no spread. The snapshot's rows hold no withheld variant (``ratings_compute``); one
    written before that is filtered here too."""
    if snapshot is None:
        return []
    hidden = withheld_variants()
    models = [m for m in snapshot.result.get("models", []) if m.get("name") not in hidden]
    estimable = [m for m in models if not m.get("note")]
    rows = []
    for m in models:
        row = {
            "name": m["name"],
            "rating": m["rating"],
            "ci_low": m.get("ci_low"),
            "ci_high": m.get("ci_high"),
            "votes": m.get("votes", 0),
            "provisional": bool(m.get("provisional")),
            "note": m.get("note", ""),
            "best": None,
            "worst": None,
        }
        if not m.get("note"):
            row["best"] = 1 + sum(1 for o in estimable if o["ci_low"] > m["ci_high"])
            row["worst"] = 1 + sum(1 for o in estimable if o is not m and o["ci_high"] > m["ci_low"])
        rows.append(row)
    rows.sort(key=lambda r: (r["best"] is None, -r["rating"]))
    return rows


def neighbour_flips() -> dict[str, Any]:
    """For each adjacent pair of estimable models on the raw board (pre-release variants under test left
    out), the flips to swap them
    (``evaluators.arena.flips``), on the counted votes; cached under the latest ratings' fingerprint."""
    fingerprint = latest_fingerprint()
    if not fingerprint:
        return {"pairs": [], "fingerprint": ""}
    hidden = ",".join(sorted(withheld_variants()))  # a release changes who is shown, not the votes
    key = f"arena-transparency-flips:{fingerprint}:{hashlib.sha256(hidden.encode()).hexdigest()[:16]}"
    found = cache.get(key)
    if found is None:
        found = {"pairs": [f.to_dict() for f in _flips(latest_snapshots().raw)], "fingerprint": fingerprint}
        cache.set(key, found, timeout=7 * 24 * 3600)
    return dict(found)


def _flips(raw: RatingSnapshot | None) -> list[Any]:
    from evaluators.arena.flips import PairTable, adjacent_flips

    if raw is None:
        return []
    # the Search Arena's votes, as the raw board it orders: the plain-chat setting's are another board's
    # the public votes the board was fitted on (a pre-release variant's are in neither)
    cells = (
        public_votes(snapshot_cut(raw))
        .filter(valid=True, battle__setting=Setting.SEARCH)
        .values_list("battle__model_a__name", "battle__model_b__name", "winner")
        .annotate(n=Count("id"))
        .order_by()
    )
    table = PairTable(cells)
    if not table.records:
        return []
    fitted = table.ratings()
    hidden = withheld_variants()
    order = sorted(
        (
            m["name"]
            for m in raw.result.get("models", [])
            if not m.get("note") and m["name"] in fitted and m["name"] not in hidden
        ),
        key=lambda name: -fitted[name],
    )
    return adjacent_flips(table, order)


# --- pre-release testing --------------------------------------------------------------------------


def prerelease(*, cut: dt.datetime | None = None) -> dict[str, Any]:
    """Anonymous pre-release testing per provider: variants under test now (how many, with their
    battles per setting that the public cut lets in, now's by default; no names, scores or records), and
    every variant tested before a release with its frozen final score (fitted with everyone's votes, its
    own row withheld until then)."""
    variants = list(ArenaModel.objects.filter(prerelease=True).order_by("organization", "name"))
    drawn = Battle.objects.filter(closed_battles_q(public_cut() if cut is None else cut)).filter(
        Q(model_a__prerelease=True) | Q(model_b__prerelease=True)
    )
    seats, chat_seats = _seats(drawn.filter(setting=Setting.SEARCH)), _seats(drawn.filter(setting=Setting.CHAT))
    providers: dict[str, dict[str, Any]] = {}
    for v in variants:
        entry = providers.setdefault(
            v.organization or "(not given)",
            {
                "provider": v.organization or "(not given)",
                "testing": 0,
                "testing_battles": 0,
                "testing_chat_battles": 0,
                "released": [],
            },
        )
        if v.released_at is None:
            entry["testing"] += 1
            entry["testing_battles"] += seats[v.pk]
            entry["testing_chat_battles"] += chat_seats[v.pk]
        else:
            entry["released"].append(
                {
                    "name": v.name,
                    "released_at": v.released_at,
                    "battles": seats[v.pk],
                    "chat_battles": chat_seats[v.pk],
                    "final_rating": v.final_rating,
                    "was_released": not v.retire_reason,
                    "retire_reason": v.retire_reason,
                }
            )
    return {"allowed": settings.ARENA_PRERELEASE_TESTING, "providers": list(providers.values())}


def transparency_report(*, now: dt.datetime | None = None) -> dict[str, Any]:
    """The whole report at ``now`` (default: the present): the policy, the rule for what public figures
    count, the shares (the Search Arena's, and the plain-chat setting's apart), the lives, the exclusions,
    the flips, the rank spreads (raw and style-controlled boards, all votes) and pre-release testing, each
    from the battles the public cut lets in."""
    cut = public_cut(now)
    board = latest_snapshots()
    min_votes = (board.raw.config.get("min_votes") if board.raw else None) or settings.ARENA_MIN_VOTES
    return {
        "policy": sampling_policy(),
        "public_rule": public_rule(),
        "shares": battle_shares(Setting.SEARCH, cut=cut),
        "chat_shares": battle_shares(Setting.CHAT, cut=cut),
        "lives": model_lives(cut=cut),
        "exclusions": exclusions_by_week(cut=cut),
        "flips": neighbour_flips(),
        "rank_spreads": {"raw": rank_spreads(board.raw), "style_controlled": rank_spreads(board.style)},
        "provisional_below": int(min_votes),
        "prerelease": prerelease(cut=cut),
        "computed_at": board.raw.computed_at if board.raw else None,
    }
