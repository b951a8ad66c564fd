"""Who leads: the home page opens on each board's top rows, and /models/ lists every public model with
its headline on each board, sortable and filterable, with the same JSON in the API. Expected values
are the scores the test gives its models (value ± 0.05 as the interval), written out by hand."""

from __future__ import annotations

import re

import pytest

from leaderboard.catalog.models import Model
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db


def _leaders(html: str, label: str) -> list[list[str]]:
    table = re.search(
        rf'<table class="leaders" aria-label="{re.escape(label)}: the leading models">(.*?)</table>', html, re.S
    )
    assert table, label
    return [
        [re.sub(r"<.*?>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)
        if "<td" in row
    ]


def test_the_home_page_leads_with_each_boards_top_rows(client, multi_lcb, user, other_user):
    for name, value in [("alpha", 0.30), ("beta", 0.80), ("gamma", 0.78), ("delta", 0.50)]:
        scored_run(multi_lcb, user, name, value)
    scored_run(multi_lcb, other_user, "hidden", 0.99, public=False)
    html = client.get("/").content.decode()
    # beta and gamma overlap (75-85 and 73-83): both rank 1; delta (45-55) is 3rd; alpha is not in the top 3
    assert _leaders(html, "Multi-LCB") == [
        ["1", "beta", "80.0% (75.0–85.0)"],
        ["1", "gamma", "78.0% (73.0–83.0)"],
        ["3", "delta", "50.0% (45.0–55.0)"],
    ]
    assert "hidden" not in html and "alpha" not in html
    assert "No public scores yet." in html  # the other boards say so instead of an empty table


def test_models_index_lists_public_models_with_their_headlines_sorted_and_filtered(client, multi_lcb, user, other_user):
    scored_run(multi_lcb, user, "alpha", 0.30)
    scored_run(multi_lcb, user, "beta", 0.80)
    scored_run(multi_lcb, other_user, "hidden", 0.99, public=False)
    Model.objects.create(name="unscored", slug="unscored", owner=user, is_public=True, modality="image")
    page = client.get("/models/?sort=multi-lcb").content.decode()
    table = page[page.index('id="models-index"') :]
    assert table.index(">beta<") < table.index(">alpha<") < table.index(">unscored<")
    assert "80.0% (75.0–85.0)" in table and "hidden" not in table
    api = client.get("/api/models/index/?sort=multi-lcb").json()
    assert [row["name"] for row in api["rows"]] == ["beta", "alpha", "unscored"]
    assert api["rows"][0]["headlines"]["multi-lcb"] == {
        "benchmark": "multi-lcb",
        "value": 0.80,
        "ci_low": pytest.approx(0.75),
        "ci_high": pytest.approx(0.85),
        "rank": 1,
        "ranked": True,
        "unranked_reason": "",
        "format": "percent",
    }
    assert api["rows"][2]["headlines"]["multi-lcb"] is None
    assert client.get("/models/?format=json&sort=multi-lcb").json() == api
    assert [row["name"] for row in client.get("/api/models/index/?sort=-multi-lcb").json()["rows"]] == [
        "alpha",
        "beta",
        "unscored",
    ]
    assert [row["name"] for row in client.get("/api/models/index/?modality=image").json()["rows"]] == ["unscored"]


def test_a_bad_index_parameter_names_its_field(client, multi_lcb):
    refused = client.get("/api/models/index/?sort=height")
    assert refused.status_code == 400 and refused.json()["field"] == "sort" and "multi-lcb" in refused.json()["detail"]
    page = client.get("/models/?modality=smell")
    assert (
        page.status_code == 400
        and "modality: &#x27;smell&#x27; is not one of text, image, video" in page.content.decode()
    )


def test_headlines_and_profile_ranks_read_the_primary_cell_among_many(client, multi_lcb, user):
    """Rows whose ``values`` hold forty other cells that order the models the other way round: the home page, the
    models index and a model's profile rank by pass@1 alone (the pages read only that cell of each row)."""
    from leaderboard.runs.models import LeaderboardEntry

    for name, value in [("alpha", 0.30), ("beta", 0.80), ("gamma", 0.55)]:
        scored_run(multi_lcb, user, name, value)
    for entry in LeaderboardEntry.objects.all():
        flipped = 1 - entry.values["pass@1"][0]
        decoys = {f"pass@1|decoy={i}": [flipped, flipped - 0.001, flipped + 0.001, 3] for i in range(40)}
        LeaderboardEntry.objects.filter(pk=entry.pk).update(values={**decoys, **entry.values, "zzz": [0.0, 0, 0, 1]})
    # pass@1 [value - 0.05, value + 0.05]: 75-85, 50-60, 25-35 lie apart, so beta 1, gamma 2, alpha 3
    assert _leaders(client.get("/").content.decode(), "Multi-LCB") == [
        ["1", "beta", "80.0% (75.0–85.0)"],
        ["2", "gamma", "55.0% (50.0–60.0)"],
        ["3", "alpha", "30.0% (25.0–35.0)"],
    ]
    api = client.get("/api/models/index/?sort=multi-lcb").json()
    assert [(row["name"], row["headlines"]["multi-lcb"]["rank"]) for row in api["rows"]] == [
        ("beta", 1),
        ("gamma", 2),
        ("alpha", 3),
    ]
    assert api["rows"][2]["headlines"]["multi-lcb"]["value"] == pytest.approx(0.30)
    assert api["rows"][2]["headlines"]["multi-lcb"]["ci_low"] == pytest.approx(0.25)
    profile = {b["benchmark"]: b for b in client.get("/api/models/alpha/profile/").json()["benchmarks"]}
    assert (profile["multi-lcb"]["rank"], profile["multi-lcb"]["ranked_of"]) == (3, 3)
