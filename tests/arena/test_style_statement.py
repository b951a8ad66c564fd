"""The arena board states that its style control is not the paper's (issue 49: an unstated deviation is a
bug), in words a visitor reads under the ratings."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def test_the_board_says_its_style_features_are_not_the_papers(client):
    from leaderboard.arena.models import RatingSnapshot

    rows = [{"name": f"m{i}", "rating": 1000.0 - 10 * i, "ci_low": 990.0 - 10 * i, "ci_high": 1010.0 - 10 * i, "votes": 100,
             "provisional": False, "note": "", "rank_ub": i + 1, "bounded": True, "rankable": True} for i in range(2)]
    RatingSnapshot.objects.create(kind="raw", result={"models": rows, "method": "Bradley-Terry"}, n_votes=100, fingerprint="s",
                                  config={"min_votes": 30, "bootstrap_rounds": 100, "seed": 0})
    html = client.get("/arena/leaderboard/").content.decode()
    found = re.search(r'<li id="style-definition">(.*?)</li>', html, re.S)
    assert found is not None
    text = re.sub(r"\s+", " ", found.group(1))
    assert "not the Search Arena paper's" in text and "mean words per assistant message" in text
    assert "not yet fitted on the paper's" in text
