"""Arena fixtures: contestants with unusual names (so a leak is unmistakable), a way to make a battle
whose answers are already in (as the generation task leaves them), and a voter for a test client."""
from __future__ import annotations

from typing import Any, Callable

import pytest

NAME_A, MAKER_A = "Zorblax-Quintet-7", "Quuxworks Ltd"
NAME_B, MAKER_B = "Vexmurr-Delta-42", "Plonkington Labs"


def answer(text: str, *, finish_reason: str = "stop", error: str = "", urls: tuple[str, ...] = ("https://www.debian.org/doc/",)) -> dict[str, Any]:
    return {"text": text, "sources": [{"number": i, "url": u, "title": f"source {i}", "snippet": ""} for i, u in enumerate(urls, 1)],
            "searches": [{"backend": "local", "query": "q", "results": [], "latency_s": 0.01, "error": ""}],
            "citation_style": "standardized", "finish_reason": finish_reason, "latency_s": 0.1, "usage": {}, "error": error}


@pytest.fixture
def contestants(db):
    from leaderboard.arena.models import ArenaModel

    return (ArenaModel.objects.create(name=NAME_A, organization=MAKER_A, description="first test contestant"),
            ArenaModel.objects.create(name=NAME_B, organization=MAKER_B, description="second test contestant"))


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
    from leaderboard.arena.services import answer_status, answer_from_dict

    def make(voter, answers=None, *, done: bool = True):
        answers = answers or [(answer("Debian packages are installed with apt [1]."), answer("Use apt install [1]."))]
        battle = Battle.objects.create(model_a=contestants[0], model_b=contestants[1], propensity=1.0, voter_hash=voter.hash, ip_hash=voter.ip_hash)
        for index, (a, b) in enumerate(answers):
            Turn.objects.create(battle=battle, index=index, prompt=f"How do I install a package? ({index})",
                                text_a=a["text"], text_b=b["text"], answer_a=a if done else None, answer_b=b if done else None,
                                status_a=answer_status(answer_from_dict(a)) if done else "streaming",
                                status_b=answer_status(answer_from_dict(b)) if done else "pending")
        return battle

    return make
