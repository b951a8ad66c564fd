"""The arena leaderboard page and the staff views on the real Postgres: per-intent and per-language
sub-leaderboards after the ratings task and the page's filters, how the figures were obtained
(method, votes, bootstrap, seed, time, exclusions, the intent method) and the top rank's robustness
(checked by refitting without the votes it names), the staff exclusions page and the admin."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.utils import timezone

from leaderboard.arena import services
from leaderboard.arena.models import RatingSnapshot, Vote, VoteExclusion
from tests.arena.conftest import MAKER_A, answer, voter_of_client

pytestmark = pytest.mark.django_db

RULES = "rules-v1 (keyword rules, no model)"
JUDGE = "judge intent-judge-7b"


def board_html(client: Client, query: str = "") -> str:
    response = client.get(f"/arena/leaderboard/{query}")
    assert response.status_code == 200
    html = response.content.decode()
    return html[html.index('<div id="board">') :]


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def pair_rows(voter: str, a: str, b: str, wins_a: int, wins_b: int, ties: int = 0, *, tag: str = "") -> list[tuple]:
    outcomes = ["model_a"] * wins_a + ["model_b"] * wins_b + ["tie"] * ties
    return [(f"{voter}{i % 7}", a, b, w, f"{tag} prompt {i} {a} {b} " + "x" * (i % 13)) for i, w in enumerate(outcomes)]


@pytest.fixture
def two_intents(seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 30
    guidance = seed_votes(
        pair_rows("g", "Alpha-Strong", "Beta-Middle", 20, 8, 2, tag="how"), intent="Guidance", languages=("en",)
    )
    analysis = seed_votes(
        pair_rows("a", "Beta-Middle", "Gamma-Weak", 6, 18, 1, tag="compare"),
        intent="Analysis",
        languages=("de", "en"),
        intent_method=JUDGE,
    )
    return guidance, analysis


def test_sub_leaderboards_exist_after_the_ratings_task_and_filter_correctly(client, two_intents):
    guidance, analysis = two_intents
    assert services.ratings_compute() == 2 * 5  # all, two intents and two languages; raw and style each
    snaps = {(s.kind, s.filter_key, s.filter_value): s for s in RatingSnapshot.objects.all()}
    assert set(snaps) == {
        (k, f, v)
        for k in ("raw", "style")
        for f, v in [("", ""), ("intent", "Guidance"), ("intent", "Analysis"), ("language", "en"), ("language", "de")]
    }
    assert snaps["raw", "intent", "Guidance"].n_votes == len(guidance) and snaps[
        "raw", "language", "de"
    ].n_votes == len(analysis)
    assert {m["name"] for m in snaps["raw", "intent", "Guidance"].result["models"]} == {"Alpha-Strong", "Beta-Middle"}

    everything = text_of(board_html(client))
    assert all(name in everything for name in ("Alpha-Strong", "Beta-Middle", "Gamma-Weak"))
    assert f"{len(guidance) + len(analysis)} counted votes" in everything

    guidance_page = text_of(board_html(client, "?intent=Guidance"))
    assert "Alpha-Strong" in guidance_page and "Gamma-Weak" not in guidance_page
    assert (
        f"{len(guidance)} counted votes" in guidance_page and "Only the votes whose intent is Guidance" in guidance_page
    )
    assert f"Intents assigned by: {RULES} ({len(guidance)} votes)" in guidance_page

    german = text_of(board_html(client, "?language=de"))
    assert "Gamma-Weak" in german and "Alpha-Strong" not in german and "identified offline by py3langid" in german
    assert f"Intents assigned by: {JUDGE} ({len(analysis)} votes)" in german
    assert f"{RULES} ({len(guidance)} votes); " in everything or f"; {RULES} ({len(guidance)} votes)" in everything

    partial = client.get("/arena/leaderboard/?intent=Analysis", HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div id="board">') and "Gamma-Weak" in partial and "Alpha-Strong" not in partial
    unknown = text_of(board_html(client, "?intent=Poetry"))
    assert "No ratings yet for this intent" in unknown and "Beta-Middle" not in unknown
    api = client.get("/api/arena/ratings/?language=de").json()
    assert {s["kind"] for s in api} == {"raw", "style"} and all(s["filter_value"] == "de" for s in api)


def test_the_page_says_how_the_figures_were_obtained(client, two_intents, settings):
    guidance, analysis = two_intents
    excluded = guidance[0]
    services.vote_exclude(vote=excluded, code="staff", detail="test exclusion", by="staff:tester")
    services.ratings_compute()
    raw = RatingSnapshot.objects.get(kind="raw", filter_key="")
    page = text_of(board_html(client))
    assert f"Method: {raw.result['method']}" in page and "Bradley-Terry" in page
    counted = len(guidance) + len(analysis) - 1
    assert f"{counted} counted votes; 1 votes excluded in all" in page
    assert f"{settings.ARENA_BOOTSTRAP_ROUNDS} bootstrap rounds, seed 0, percentile intervals" in page
    assert "a model below 5 votes is provisional and its interval is never narrower than the model-based one" in page
    assert f"Computed {timezone.localtime(raw.computed_at, dt.UTC):%Y-%m-%d %H:%M} UTC" in page
    assert "see why" not in page  # the link to the exclusions is for staff


def test_the_top_ranks_robustness_is_shown_and_true(client, seed_votes, settings):
    """A narrow lead: the page names how many removed votes flip the top; refitting the counted
    votes without exactly those votes indeed puts the challenger on top."""
    from evaluators.arena.ratings import RatingConfig, rate

    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 20
    seed_votes(
        pair_rows("n", "Alpha-Strong", "Beta-Middle", 17, 14, 3)
        + pair_rows("m", "Beta-Middle", "Gamma-Weak", 15, 5, 0, tag="b")
    )
    services.ratings_compute()
    robust = RatingSnapshot.objects.get(kind="raw", filter_key="").result["robustness"]
    assert robust["top_model"] == "Alpha-Strong" and robust["votes_to_flip_top"]
    page = text_of(board_html(client))
    n, total = robust["votes_to_flip_top"], Vote.objects.filter(valid=True).count()
    share = f"{100 * n / total:.3g}%"
    assert (
        f"Robustness of the top rank: removing {n} of the {total} counted votes ({share}) is enough to put "
        f"{robust['new_top_model']} ahead of Alpha-Strong; fewer might do"
    ) in page

    records = services.battle_records()
    for removal in robust["removed_votes"]:
        for _ in range(removal["count"]):
            records.remove(
                next(
                    r
                    for r in records
                    if (r.model_a, r.model_b, r.winner) == (removal["model_a"], removal["model_b"], removal["winner"])
                )
            )
    assert len(records) == total - n
    refit = rate(
        records,
        RatingConfig(reference=services.reference_model(records), robustness=False, interval="sandwich", min_votes=5),
    )
    assert max(refit.models, key=lambda m: m.rating).name == robust["new_top_model"]


def test_a_solid_lead_is_reported_as_searched_not_proven(client, seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 10
    seed_votes(pair_rows("s", "Alpha-Strong", "Beta-Middle", 60, 2, 0))  # a lead, but a finite one (two losses)
    services.ratings_compute()
    robust = RatingSnapshot.objects.get(kind="raw", filter_key="").result["robustness"]
    assert robust["votes_to_flip_top"] is None
    page = text_of(board_html(client))
    assert (
        f"a search that removed {robust['searched_up_to']} of the most influential votes did not change the top model, "
        "Alpha-Strong; this is not a proof"
    ) in page


# --- staff: the exclusions page and the admin -----------------------------------------------------


@pytest.fixture
def excluded_votes(client, make_battle, seed_votes):
    """One vote excluded at vote time (the answer named its maker), one by the periodic flood check,
    and an open battle whose names must stay hidden."""
    battle = make_battle(
        voter_of_client(client), [(answer(f"I am built by {MAKER_A}; use apt [1]."), answer("Use apt [1]."))]
    )
    client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    flood = seed_votes(
        [
            (f"bot{i}", "Alpha-Strong", "Beta-Middle", "model_a", "best vpn for netflix abroad 2025" + "!" * i)
            for i in range(2)
        ]
    )
    services.vote_exclude(
        vote=flood[1], code=VoteExclusion.Code.DUPLICATE_FLOOD, detail="one of 2 near-duplicate prompts"
    )
    from leaderboard.arena.models import ArenaModel, Battle

    hidden_a = ArenaModel.objects.create(name="Secretive-Open-One", organization="Hush Corp")
    hidden_b = ArenaModel.objects.create(name="Secretive-Open-Two", organization="Mum Inc")
    open_battle = Battle.objects.create(model_a=hidden_a, model_b=hidden_b, voter_hash="someone-else")
    return battle, flood[1], open_battle


def test_staff_see_every_exclusion_with_its_reason(staff_client, excluded_votes):
    battle, flood_vote, open_battle = excluded_votes
    page = staff_client.get("/arena/exclusions/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('<span class="badge failed">') == VoteExclusion.objects.count() == 2
    assert "self_identification" in html and f"built by {MAKER_A}" in html and battle.public_id in html
    assert (
        "duplicate_flood" in html and "one of 2 near-duplicate prompts" in html and flood_vote.battle.public_id in html
    )
    assert open_battle.public_id not in html and "Secretive-Open" not in html and "Hush Corp" not in html
    only_floods = staff_client.get("/arena/exclusions/?code=duplicate_flood").content.decode()
    assert "duplicate_flood" in only_floods and f"built by {MAKER_A}" not in only_floods
    services.ratings_compute()
    assert "see why" in staff_client.get("/arena/leaderboard/").content.decode()  # the board links staff to the reasons


def test_non_staff_are_refused_the_exclusions_and_the_admin(client, excluded_votes, django_user_model):
    plain = Client()
    plain.force_login(django_user_model.objects.create_user("voter", password="a-long-test-password"))
    for visitor in (client, plain):
        for path in ("/arena/exclusions/", "/admin/arena/voteexclusion/", "/admin/arena/vote/", "/admin/arena/battle/"):
            response = visitor.get(path)
            assert response.status_code == 302 and "/login/" in response["Location"], path
            assert b"self_identification" not in response.content and MAKER_A.encode() not in response.content


def test_the_admin_lists_exclusions_and_filters_votes_by_reason(staff_client, excluded_votes):
    battle, flood_vote, _ = excluded_votes
    listing = staff_client.get("/admin/arena/voteexclusion/").content.decode()
    assert "self_identification" in listing and "duplicate_flood" in listing and f"built by {MAKER_A}" in listing
    filtered = staff_client.get("/admin/arena/vote/?exclusions__code=duplicate_flood").content.decode()
    assert "1 vote" in filtered and f"/admin/arena/vote/{flood_vote.pk}/change/" in filtered
    change = staff_client.get(f"/admin/arena/vote/{battle.vote.pk}/change/")
    assert change.status_code == 200 and "self_identification" in change.content.decode()
    searched = staff_client.get(f"/admin/arena/voteexclusion/?q={flood_vote.battle.public_id}").content.decode()
    assert "one of 2 near-duplicate prompts" in searched and f"built by {MAKER_A}" not in searched


def test_a_model_that_only_won_is_shown_without_a_number(client, seed_votes, settings):
    """One vote (or only wins) has no finite maximum-likelihood rating: the page says so instead of
    printing the value the tiny L2 penalty holds it at, and keeps it off the interval scale."""
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 1, 20
    seed_votes(
        pair_rows("v", "Alpha-Strong", "Beta-Middle", 12, 9, 1) + pair_rows("w", "Alpha-Strong", "Delta-Lucky", 0, 1)
    )
    services.ratings_compute()
    lucky = next(
        m for m in RatingSnapshot.objects.get(kind="raw", filter_key="").result["models"] if m["name"] == "Delta-Lucky"
    )
    assert lucky["note"] and "unbounded" in lucky["note"]
    html = board_html(client)
    row = next(r for r in re.findall(r"<tr.*?</tr>", html, re.S) if "Delta-Lucky" in r)
    # not the value a penalty holds it at: the exact one-sided bound, the interval open above, no bar
    assert lucky["ci_high"] is None and lucky["rating"] == lucky["ci_low"] and not lucky["bounded"]
    assert "unbounded" in row and f"≥ {round(lucky['ci_low'])}" in row and f"{round(lucky['ci_low'])} – open" in row
    assert "ci-bar" not in row and lucky["rank_ub"] == 3  # not ranked above the two estimable models
    other = next(r for r in re.findall(r"<tr.*?</tr>", html, re.S) if "Beta-Middle" in r)
    assert "ci-bar" in other and "not estimable" not in other


def test_without_a_configured_reference_the_page_names_the_best_connected_model_never_a_new_one(
    client, seed_votes, settings
):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS, settings.ARENA_REFERENCE_MODEL = 5, 10, ""
    seed_votes(
        pair_rows("r", "Beta-Middle", "Gamma-Weak", 14, 6, 2)
        + pair_rows("q", "Delta-Strong", "Beta-Middle", 12, 8, 1)
        + pair_rows("p", "Delta-Strong", "Gamma-Weak", 15, 5)
        + pair_rows("n", "Aardvark-New", "Gamma-Weak", 1, 0)
    )
    services.ratings_compute()
    result = RatingSnapshot.objects.get(kind="raw", filter_key="").result
    assert result["anchor"]["model"] == "Beta-Middle"  # two opponents and the most votes among the well-estimated
    new = next(m for m in result["models"] if m["name"] == "Aardvark-New")
    assert new["provisional"] and not new["bounded"] and new["rank_ub"] == 4
    page = text_of(board_html(client))
    assert (
        "Reference model: Beta-Middle" in page
        and "fixed at 1000 (the best-connected well-estimated model: 2 opponents" in page
    )
