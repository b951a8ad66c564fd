"""Arena fixtures: contestants with unusual names (so a leak is unmistakable), a way to make a battle
whose answers are already in (as the generation task leaves them), and a voter for a test client."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

NAME_A, MAKER_A = "Zorblax-Quintet-7", "Quuxworks Ltd"
NAME_B, MAKER_B = "Vexmurr-Delta-42", "Plonkington Labs"


def answer(
    text: str, *, finish_reason: str = "stop", error: str = "", urls: tuple[str, ...] = ("https://www.debian.org/doc/",)
) -> dict[str, Any]:
    return {
        "text": text,
        "sources": [{"number": i, "url": u, "title": f"source {i}", "snippet": ""} for i, u in enumerate(urls, 1)],
        "searches": [{"backend": "local", "query": "q", "results": [], "latency_s": 0.01, "error": ""}],
        "citation_style": "standardized",
        "finish_reason": finish_reason,
        "latency_s": 0.1,
        "usage": {},
        "error": error,
    }


@pytest.fixture
def contestants(db):
    from leaderboard.arena.models import ArenaModel

    return (
        ArenaModel.objects.create(name=NAME_A, organization=MAKER_A, description="first test contestant"),
        ArenaModel.objects.create(name=NAME_B, organization=MAKER_B, description="second test contestant"),
    )


def voter_of_client(client) -> Any:
    """The Voter the site sees for a test client's session (opens one if needed)."""
    from django.test import RequestFactory

    from leaderboard.arena.identity import voter_of

    client.get("/arena/")
    request = RequestFactory().get("/")
    request.user = __import__("django.contrib.auth.models", fromlist=["AnonymousUser"]).AnonymousUser()
    request.session = client.session
    return voter_of(request)


@pytest.fixture
def make_battle(contestants) -> Callable[..., Any]:
    """A battle with finished turns: ``answers`` is a list of (answer_a, answer_b) dicts per turn."""
    from leaderboard.arena.models import Battle, Turn
    from leaderboard.arena.selectors import answer_from_dict
    from leaderboard.arena.services import answer_status

    def make(voter, answers=None, *, done: bool = True):
        answers = answers or [(answer("Debian packages are installed with apt [1]."), answer("Use apt install [1]."))]
        battle = Battle.objects.create(
            model_a=contestants[0], model_b=contestants[1], propensity=1.0, voter_hash=voter.hash, ip_hash=voter.ip_hash
        )
        for index, (a, b) in enumerate(answers):
            Turn.objects.create(
                battle=battle,
                index=index,
                prompt=f"How do I install a package? ({index})",
                text_a=a["text"],
                text_b=b["text"],
                answer_a=a if done else None,
                answer_b=b if done else None,
                status_a=answer_status(answer_from_dict(a)) if done else "streaming",
                status_b=answer_status(answer_from_dict(b)) if done else "pending",
            )
        return battle

    return make


@pytest.fixture
def seed_votes(db) -> Callable[..., list[Any]]:
    """Voted battles straight into the tables (as the vote path leaves them, features included), for
    the periodic checks and the ratings: ``seed_votes([(voter, model_a, model_b, winner, prompt), ...],
    intent=..., languages=[...], setting="search" or "chat")``. Models are created on first use. Returns
    the Votes in order."""
    from leaderboard.arena.models import ArenaModel, Battle, BattleStatus, Turn, Vote
    from leaderboard.arena.services import style_features

    features = style_features(
        texts=["Use apt [1]."], traces=[["https://www.debian.org/doc/"]], citation_style="standardized"
    )

    def seed(
        rows,
        *,
        intent: str = "Guidance",
        languages: tuple[str, ...] = ("en",),
        intent_method: str = "rules-v1 (keyword rules, no model)",
        setting: str = "search",
    ) -> list[Any]:
        models = {}
        for name in sorted({r[1] for r in rows} | {r[2] for r in rows}):
            models[name], _ = ArenaModel.objects.get_or_create(name=name, defaults={"organization": f"{name} maker"})
        battles = Battle.objects.bulk_create(
            [
                Battle(
                    model_a=models[a],
                    model_b=models[b],
                    voter_hash=voter,
                    status=BattleStatus.VOTED,
                    locked=True,
                    propensity=1.0,
                    primary_intent=intent,
                    secondary_intent="Other",
                    languages=list(languages),
                    features_a=features,
                    features_b=features,
                    extra={"intent_method": intent_method},
                    setting=setting,
                )
                for voter, a, b, _, _ in rows
            ]
        )
        Turn.objects.bulk_create(
            [
                Turn(
                    battle=battle,
                    index=0,
                    prompt=prompt,
                    text_a="Use apt [1].",
                    text_b="Use apt [1].",
                    status_a="complete",
                    status_b="complete",
                    answer_a=answer("Use apt [1]."),
                    answer_b=answer("Use apt [1]."),
                    language=languages[0] if languages else "",
                )
                for battle, (_, _, _, _, prompt) in zip(battles, rows)
            ]
        )
        return Vote.objects.bulk_create(
            [
                Vote(battle=battle, winner=winner, turn_count=1, voter_hash=voter)
                for battle, (voter, _, _, winner, _) in zip(battles, rows)
            ]
        )

    return seed


@pytest.fixture
def staff_client(django_user_model):
    from django.test import Client

    staff = django_user_model.objects.create_user(
        "staffer", password="a-long-test-password", is_staff=True, is_superuser=True
    )
    client = Client()
    client.force_login(staff)
    return client
