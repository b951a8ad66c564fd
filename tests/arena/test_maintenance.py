"""The periodic integrity checks on the real Postgres: an anomalous voter's votes and a near-duplicate
prompt flood are excluded with recorded reasons, honest votes are untouched, the ratings leave them
out, and a second pass changes nothing; the periodic task does the same through a real worker."""

from __future__ import annotations

import hashlib
import math
import random

import pytest

from leaderboard.arena import services
from leaderboard.arena.models import RatingSnapshot, Vote, VoteExclusion

pytestmark = pytest.mark.django_db

STRENGTH = {"Alpha-Strong": 2.0, "Beta-Middle": 1.0, "Gamma-Weak": 0.0}  # log-odds
PAIRS = [("Alpha-Strong", "Beta-Middle"), ("Beta-Middle", "Gamma-Weak"), ("Alpha-Strong", "Gamma-Weak")]
ATTACKER = "attacker-voter-hash"


def distinct_prompt(i: int) -> str:
    """Prompts that share no 5-character shingles to speak of (so no flood is seen among them)."""
    return "Tell me about " + hashlib.sha256(str(i).encode()).hexdigest()[:48]


def honest_rows(*, voters: int = 12, per_voter: int = 30, seed: int = 0) -> list[tuple]:
    """Votes drawn from the Bradley-Terry model of STRENGTH (ties now and then)."""
    rng = random.Random(seed)
    rows = []
    for v in range(voters):
        for k in range(per_voter):
            a, b = PAIRS[k % len(PAIRS)]
            if rng.random() < 0.5:
                a, b = b, a
            p_a = 1 / (1 + 2.718281828 ** (STRENGTH[b] - STRENGTH[a]))
            draw = rng.random()
            winner = "tie" if draw < 0.1 else ("model_a" if rng.random() < p_a else "model_b")
            rows.append((f"honest-{v}", a, b, winner, distinct_prompt(len(rows))))
    return rows


def attacker_rows(n: int = 40, *, start: int = 10_000) -> list[tuple]:
    """Always the weaker model, on whichever side it is."""
    rows = []
    for k in range(n):
        strong, weak = PAIRS[k % len(PAIRS)]
        a, b = (strong, weak) if k % 2 else (weak, strong)
        rows.append((ATTACKER, a, b, "model_a" if a == weak else "model_b", distinct_prompt(start + k)))
    return rows


def snapshot_state() -> list[tuple]:
    return list(VoteExclusion.objects.order_by("id").values_list("vote_id", "code", "detail", "by"))


def test_an_anomalous_voter_is_excluded_with_its_reason_and_honest_votes_are_untouched(seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 20
    honest = seed_votes(honest_rows())
    attack = seed_votes(attacker_rows())

    assert services.voters_flag_anomalous() == len(attack)

    for vote in Vote.objects.filter(pk__in=[v.pk for v in attack]):
        assert not vote.valid and vote.exclusion_reasons == ["anomalous_voter"]
        exclusion = vote.exclusions.get()
        assert exclusion.code == "anomalous_voter" and exclusion.by == "system"
        assert (
            "40 decisive votes" in exclusion.detail
            and "z = " in exclusion.detail
            and "lower-rated model 40 times" in exclusion.detail
        )
    assert Vote.objects.filter(pk__in=[v.pk for v in honest], valid=True, exclusion_reasons=[]).count() == len(honest)
    assert not VoteExclusion.objects.filter(vote__in=[v.pk for v in honest]).exists()

    before = snapshot_state()
    assert services.voters_flag_anomalous() == 0  # a second pass changes nothing
    assert snapshot_state() == before

    assert services.ratings_compute() > 0
    raw = RatingSnapshot.objects.get(kind="raw", filter_key="")
    assert raw.n_votes == len(honest) and raw.n_excluded == len(attack)
    by_name = {m["name"]: m for m in raw.result["models"]}
    assert sum(m["votes"] for m in by_name.values()) == 2 * len(honest)  # the attacker's votes are not in it
    assert by_name["Alpha-Strong"]["rating"] > by_name["Beta-Middle"]["rating"] > by_name["Gamma-Weak"]["rating"]
    assert services.ratings_compute() == 0  # nothing changed since


def test_too_few_votes_or_ties_are_not_judged_anomalous(seed_votes):
    """A voter below the minimum of decisive votes is never flagged, however odd their votes."""
    seed_votes(honest_rows())
    seed_votes(attacker_rows(10))
    assert services.voters_flag_anomalous() == 0
    assert not VoteExclusion.objects.exists()


def two_model_z(chose_x: int, chose_y: int, p_x: float) -> float:
    """The score test's z for a voter who picked X ``chose_x`` times and Y ``chose_y`` times when the fit
    says X beats Y with probability ``p_x`` (by hand: the log-likelihood of the choices against its mean
    and variance; which side X sat on does not matter with two models)."""
    n = chose_x + chose_y
    loglik = chose_x * math.log(p_x) + chose_y * math.log(1 - p_x)
    mean = n * (p_x * math.log(p_x) + (1 - p_x) * math.log(1 - p_x))
    variance = n * p_x * (1 - p_x) * math.log(p_x / (1 - p_x)) ** 2
    return (loglik - mean) / math.sqrt(variance)


def test_the_anomalous_voter_check_judges_each_setting_against_its_own_votes(seed_votes):
    """With search, X beats Y 9 times in 10; in plain chat Y beats X 9 times in 10. A chat voter who
    always picks X is anomalous against the chat votes, not against both settings pooled (where X is the
    stronger); pooled, the honest chat voters would be flagged instead."""
    from evaluators.arena.integrity import anomalous_voters

    x, y = "Searcher-Xeno", "Plain-Yarrow"

    def rows(voter: str, x_wins: int, y_wins: int, start: int) -> list[tuple]:
        picks = ["x"] * x_wins + ["y"] * y_wins
        out = []
        for k, pick in enumerate(picks):
            a, b = (x, y) if k % 2 else (y, x)
            out.append(
                (voter, a, b, "model_a" if (a == x) == (pick == "x") else "model_b", distinct_prompt(start + len(out)))
            )
        return out

    search = [r for v in range(10) for r in rows(f"search-{v}", 36, 4, 1000 * v)]
    honest_chat = [r for v in range(10) for r in rows(f"chat-{v}", 2, 18, 20_000 + 1000 * v)]
    contrarian = rows("chat-contrarian", 30, 0, 50_000)
    seed_votes(search)
    honest_chat_votes = seed_votes(honest_chat, setting="chat")
    contrarian_votes = seed_votes(contrarian, setting="chat")

    # by hand: with two models the fitted P(X beats Y) is X's share of the wins
    chat_p, pooled_p = (20 + 30) / 230, (360 + 20 + 30) / 630
    assert two_model_z(30, 0, chat_p) < -4 < two_model_z(30, 0, pooled_p)  # the contrarian: flagged in chat only
    assert two_model_z(2, 18, pooled_p) < -4 < two_model_z(2, 18, chat_p)  # an honest chat voter: flagged pooled only
    assert two_model_z(36, 4, 9 / 10) > -4  # a search voter, against the search votes alone
    pooled = anomalous_voters([(voter, a, b, w) for voter, a, b, w, _ in search + honest_chat + contrarian])
    assert set(pooled) == {f"chat-{v}" for v in range(10)}  # what the pooled check got wrong

    assert services.voters_flag_anomalous() == len(contrarian_votes)
    flagged = VoteExclusion.objects.filter(code="anomalous_voter")
    assert set(flagged.values_list("vote_id", flat=True)) == {v.pk for v in contrarian_votes}
    detail = flagged.first().detail
    assert (
        detail.startswith("plain chat, no search: 30 decisive votes")
        and f"z = {two_model_z(30, 0, chat_p):.1f}" in detail
    )
    assert Vote.objects.filter(pk__in=[v.pk for v in honest_chat_votes], valid=True).count() == len(honest_chat_votes)
    assert Vote.objects.filter(battle__setting="search", valid=True).count() == len(search)


FLOOD = "Which VPN is the best one for streaming Netflix from abroad in 2025? Give me the top pick and a discount code"


def test_a_near_duplicate_prompt_flood_is_excluded_and_the_first_of_it_counts(seed_votes, settings):
    settings.ARENA_FLOOD_MIN_GROUP = 5
    honest = seed_votes([(f"h{i}", "Alpha-Strong", "Beta-Middle", "model_a", distinct_prompt(i)) for i in range(8)])
    variants = [
        FLOOD,
        FLOOD.upper(),
        FLOOD + "!!",
        FLOOD.replace("2025", "2025,"),
        "  " + FLOOD + " please",
        FLOOD.replace("top", "Top"),
    ]
    flood = seed_votes([(f"bot{i}", "Gamma-Weak", "Alpha-Strong", "model_a", text) for i, text in enumerate(variants)])
    few = seed_votes(
        [
            (
                f"f{i}",
                "Beta-Middle",
                "Gamma-Weak",
                "model_b",
                "How do I configure unattended-upgrades on Debian bookworm?" + "?" * i,
            )
            for i in range(3)
        ]
    )

    assert services.prompts_flag_floods() == len(flood) - 1

    first, *rest = sorted(flood, key=lambda v: v.battle_id)
    assert Vote.objects.get(pk=first.pk).valid
    for vote in Vote.objects.filter(pk__in=[v.pk for v in rest]):
        assert not vote.valid and vote.exclusion_reasons == ["duplicate_flood"]
        assert vote.exclusions.get().detail == "one of 6 near-duplicate prompts within 7 days"
    untouched = [v.pk for v in honest + few]
    assert Vote.objects.filter(pk__in=untouched, valid=True).count() == len(
        untouched
    )  # a group under the minimum is allowed

    before = snapshot_state()
    assert services.prompts_flag_floods() == 0
    assert snapshot_state() == before
    services.ratings_compute()
    raw = RatingSnapshot.objects.get(kind="raw", filter_key="")
    assert raw.n_votes == len(honest) + len(few) + 1 and raw.n_excluded == len(flood) - 1


def test_a_flood_older_than_the_window_is_left_alone(seed_votes, settings):
    import datetime as dt

    from django.utils import timezone

    from leaderboard.arena.models import Battle

    settings.ARENA_FLOOD_MIN_GROUP = 3
    old = seed_votes([(f"bot{i}", "Gamma-Weak", "Alpha-Strong", "model_a", FLOOD + "!" * i) for i in range(4)])
    Battle.objects.filter(vote__in=old).update(created_at=timezone.now() - dt.timedelta(days=30))
    assert services.prompts_flag_floods() == 0
    assert services.prompts_flag_floods(window=dt.timedelta(days=60)) == 3


def test_an_exclusion_with_another_reason_is_kept_alongside(seed_votes, settings):
    """A vote already excluded (say, at vote time) gets the new reason added, not replaced."""
    settings.ARENA_FLOOD_MIN_GROUP = 2
    votes = seed_votes([(f"bot{i}", "Gamma-Weak", "Alpha-Strong", "model_a", FLOOD + "!" * i) for i in range(2)])
    second = max(votes, key=lambda v: v.battle_id)
    services.vote_exclude(vote=second, code="self_identification", detail="turn 1, side A: I am Gamma-Weak")
    assert services.prompts_flag_floods() == 1
    second.refresh_from_db()
    assert second.exclusion_reasons == ["self_identification", "duplicate_flood"] and not second.valid
    assert set(second.exclusions.values_list("code", flat=True)) == {"self_identification", "duplicate_flood"}


@pytest.mark.django_db(transaction=True)
def test_the_periodic_task_flags_both_and_recomputes_the_ratings_through_a_real_worker(
    seed_votes, worker_env, tmp_path
):
    """Celery beat in a real worker runs ``arena_maintain`` every second here: the anomalous voter
    and the flood are excluded with their reasons and the snapshot counts neither."""
    from tests.conftest import Worker, wait_for

    honest = seed_votes(honest_rows())
    attack = seed_votes(attacker_rows())
    flood = seed_votes([(f"bot{i}", "Gamma-Weak", "Alpha-Strong", "model_a", FLOOD + "!" * i) for i in range(6)])
    env = {
        **worker_env,
        "LEADERBOARD_ARENA_RATINGS_BEAT_SECONDS": "1",
        "LEADERBOARD_ARENA_MIN_VOTES": "5",
        "LEADERBOARD_ARENA_BOOTSTRAP_ROUNDS": "10",
        "LEADERBOARD_ARENA_FLOOD_MIN_GROUP": "5",
    }
    worker = Worker(env, tmp_path / "cpu.log")
    worker.start()
    try:
        wait_for(
            lambda: RatingSnapshot.objects.filter(kind="raw", filter_key="", n_excluded=len(attack) + 5).exists(),
            timeout=90,
            what="the periodic arena_maintain",
        )
    finally:
        worker.stop()
        print((tmp_path / "cpu.log").read_text()[-3000:])
    assert VoteExclusion.objects.filter(code="anomalous_voter").count() == len(attack)
    assert VoteExclusion.objects.filter(code="duplicate_flood").count() == len(flood) - 1
    assert Vote.objects.filter(valid=True).count() == len(honest) + 1
    assert RatingSnapshot.objects.get(kind="raw", filter_key="", n_excluded=len(attack) + 5).n_votes == len(honest) + 1
