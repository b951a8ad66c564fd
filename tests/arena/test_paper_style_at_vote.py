"""A vote stores both style controls' features of each side: ours and the Search Arena paper's
(mean words per assistant message, the search trace's URLs per turn truncated as its int32 array
does, its domain rules), worked out by hand for a two-turn battle."""

from __future__ import annotations

import pytest

from leaderboard.arena import services
from tests.arena.conftest import answer, voter_of_client


@pytest.mark.django_db
def test_a_vote_stores_the_papers_style_features_beside_ours(client, make_battle):
    voter = voter_of_client(client)
    first = answer(
        "Debian packages are installed with apt [1] [2].",
        urls=("https://www.debian.org/doc/", "https://www.youtube.com/watch?v=1"),
    )
    second = answer("Use apt [1].", urls=("https://github.com/apt/apt",))
    battle = make_battle(voter, [(first, answer("Yes [1].")), (second, answer("No [1]."))])
    services.vote_cast(battle=battle, winner="model_a", voter=voter)
    battle.refresh_from_db()
    a = battle.features_a
    # by hand: (8 + 3) / 2 = 5.5 words a message -> 5; (2 + 1) / 2 = 1.5 URLs a turn -> 1
    assert (a["paper_response_length"], a["paper_citation_count"]) == (5.0, 1.0)
    # www.debian.org: no rule of the paper's names it (other); youtube; github.com: tech_coding
    assert {k for k, v in a.items() if k.startswith("paper_cites_") and v} == {
        "paper_cites_other",
        "paper_cites_youtube",
        "paper_cites_tech_coding",
    }
    assert (a["length"], a["citation_count"]) == (11.0, 3.0)  # ours: all turns' words, distinct URLs
    # side b cited debian.org in both turns: ours counts it once, the paper once a turn (1 a turn)
    assert (battle.features_b["citation_count"], battle.features_b["paper_citation_count"]) == (1.0, 1.0)
