"""The style-controlled ratings fit the Search Arena paper's features by default, this site's own set as the
named alternative (issue 49: the style control as the paper computes it), and the board says which one in
words a visitor reads under the ratings."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _statement(client) -> str:
    html = client.get("/arena/leaderboard/").content.decode()
    found = re.search(r'<li id="style-definition">(.*?)</li>', html, re.S)
    assert found is not None
    return re.sub(r"\s+", " ", found.group(1))


def _votes(seed_votes) -> None:
    rows = [(f"v{i}", "alpha", "beta", "model_a" if i % 3 else "model_b", f"question {i}") for i in range(12)]
    rows += [(f"w{i}", "beta", "gamma", "model_a" if i % 3 else "model_b", f"other question {i}") for i in range(12)]
    seed_votes(rows)


def test_by_default_the_style_control_is_the_papers(client, seed_votes, settings):
    from evaluators.arena.style import PAPER_STYLE_FEATURES
    from leaderboard.arena import selectors, services

    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 20
    _votes(seed_votes)
    services.ratings_compute()
    style = selectors.latest_snapshots().style
    assert style is not None and tuple(style.config["style_features"]) == PAPER_STYLE_FEATURES
    assert {c["feature"] for c in style.result["coefficients"]} == set(PAPER_STYLE_FEATURES)
    text = _statement(client)
    assert text.startswith("Style control: the Search Arena paper's features, as it computes them")
    findings = client.get("/arena/findings/").content.decode()
    assert "Length and citations, as the paper defines them" in findings and "Headers" not in findings
    assert "Not in this fit: the style control above uses the Search Arena paper's features" in findings
    assert "docs.microsoft.com is US news" in findings and "economist.com" in findings  # the paper's rules, listed


def test_this_sites_own_set_is_the_named_alternative(client, seed_votes, settings):
    from evaluators.arena.style import STYLE_FEATURES
    from leaderboard.arena import selectors, services

    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 20
    settings.ARENA_STYLE_DEFINITION = "ours"
    _votes(seed_votes)
    services.ratings_compute()
    style = selectors.latest_snapshots().style
    assert style is not None and tuple(style.config["style_features"]) == STYLE_FEATURES
    text = _statement(client)
    assert "this site's own features" in text and "not the Search Arena paper's" in text


def test_an_unknown_definition_is_refused_with_the_setting_named(seed_votes, settings):
    from leaderboard.arena import services

    settings.ARENA_STYLE_DEFINITION = "fancy"
    _votes(seed_votes)
    with pytest.raises(ValueError, match="LEADERBOARD_ARENA_STYLE_DEFINITION: 'fancy' is not one of ours, paper"):
        services.ratings_compute()
