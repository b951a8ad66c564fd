"""Pages render without JavaScript, answer htmx with partials, and use a fixed number of queries
whatever the number of leaderboard rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.runs.models import EvaluationRun
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db


def test_home_lists_all_benchmarks_and_says_which_wait(client, multi_lcb):
    html = client.get("/").content.decode()
    for name in [
        "Multi-LCB",
        "PoliCon",
        "CausalPitfalls",
        "CausalPitfalls (code-assisted)",
        "IndicVisionBench OCR",
        "IndicVisionBench translation",
        "IndicVisionBench VQA",
        "Video NIAH (single hop)",
        "Video NIAH (multi hop)",
        "Search Arena",
    ]:
        assert name in html
    assert "Evaluator not available yet" not in html  # all five benchmarks have their evaluators
    assert client.get("/benchmarks/causal-pitfalls/").status_code == 200
    assert "soon" not in html  # submitting a model is here
    assert "Register a model" not in html and '<a href="/accounts/signup/">Create an account</a>' in html


def test_home_leads_a_signed_in_user_to_both_ways_of_submitting(client, multi_lcb, user):
    client.force_login(user)
    html = client.get("/").content.decode()
    assert 'href="/submit/"' in html and 'href="/models/register/"' in html


def test_multi_lcb_page_says_how_outputs_are_compared_and_which_toolchains_run(client, multi_lcb):
    html = client.get("/benchmarks/multi-lcb/").content.decode()
    assert "How it is scored" in html
    assert "within an absolute 1e-5" in html and "100000000000000000001" in html
    assert "Kotlin: Kotlin 2.4 on OpenJDK 17" in html
    assert "Scala 2.13 is not Scala 3" in html and "C#: Mono 6.8 (mcs). mcs accepts C# 7 at most" in html


def test_leaderboard_sorted_ranked_with_intervals_and_hidden_private_rows(client, multi_lcb, user, other_user):
    scored_run(multi_lcb, user, "alpha", 0.30)
    scored_run(multi_lcb, user, "beta", 0.80)
    scored_run(multi_lcb, user, "gamma", 0.78)
    scored_run(multi_lcb, other_user, "hidden", 0.99, public=False)
    html = client.get("/benchmarks/multi-lcb/").content.decode()
    assert html.index("beta") < html.index("gamma") < html.index("alpha")
    assert "hidden" not in html
    # Multi-LCB's board is wide (four figures and twelve languages): intervals widened to whole points,
    # exact in the title
    assert 'title="95% interval 75.0 to 85.0, n=3"' in html and '<span class="ci">75–85</span>' in html
    rows = client.get("/api/benchmarks/multi-lcb/leaderboard/").json()["rows"]
    assert [(r["model"], r["rank"]) for r in rows] == [
        ("beta", 1),
        ("gamma", 1),
        ("alpha", 3),
    ]  # overlapping intervals share rank 1
    ascending = client.get("/benchmarks/multi-lcb/?sort=pass@1|language=python").content.decode()
    assert "sorted" in ascending
    partial = client.get("/benchmarks/multi-lcb/", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and 'id="leaderboard"' in partial
    assert "beta" in client.get("/benchmarks/multi-lcb/?format=csv").content.decode()


def test_the_csv_download_never_hands_a_spreadsheet_a_formula(client, multi_lcb, user):
    scored_run(multi_lcb, user, '=HYPERLINK("http://evil.example","x")', 0.5)
    scored_run(multi_lcb, user, "@SUM(1+1)", 0.4)
    text = client.get("/benchmarks/multi-lcb/?format=csv").content.decode()
    import csv
    import io

    names = [row[1] for row in csv.reader(io.StringIO(text))][1:]
    assert sorted(names) == sorted(['\'=HYPERLINK("http://evil.example","x")', "'@SUM(1+1)"])


def test_leaderboard_queries_do_not_grow_with_rows(client, multi_lcb, user):
    scored_run(multi_lcb, user, "m0", 0.5)
    with CaptureQueriesContext(connection) as few:
        client.get("/benchmarks/multi-lcb/")
    for i in range(1, 30):
        scored_run(multi_lcb, user, f"m{i}", i / 40)
    with CaptureQueriesContext(connection) as many:
        assert client.get("/benchmarks/multi-lcb/").status_code == 200
    assert len(many) == len(few)


def test_openapi_schema_and_docs(client):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200 and b"/api/submissions/" in schema.content
    assert client.get("/api/docs/").status_code == 200


def add_item_results(run: EvaluationRun, passes: dict[tuple[str, str], bool]) -> None:
    from leaderboard.runs.models import ItemResult

    dates = {"t1_a": "2023-06-01", "t2_a": "2024-03-01", "t3_a": "2025-02-01"}
    ItemResult.objects.bulk_create(
        [
            ItemResult(
                run=run,
                item_id=f"{problem}/{language}",
                primary_score=float(ok),
                slices={
                    "language": language,
                    "difficulty": "easy",
                    "platform": "atcoder",
                    "contest_date": dates[problem],
                },
                scores={"n": 1.0, "c": float(ok), "pass@1": float(ok)},
                detail={"samples": [{"verdict": "passed" if ok else "wrong_answer"}]},
            )
            for (problem, language), ok in passes.items()
        ]
    )


def test_date_window_recomputes_scores_and_flags_contaminated_models(client, multi_lcb, user):
    from datetime import date

    old_only = {
        ("t1_a", "python"): True,
        ("t2_a", "python"): True,
        ("t3_a", "python"): False,
        ("t1_a", "rust"): True,
        ("t2_a", "rust"): False,
        ("t3_a", "rust"): False,
    }
    all_pass = dict.fromkeys(old_only, True)
    memorizer = scored_run(multi_lcb, user, "memorizer", 0.5)
    add_item_results(memorizer, old_only)
    fresh = scored_run(multi_lcb, user, "fresh", 0.9)
    add_item_results(fresh, all_pass)
    late = scored_run(multi_lcb, user, "late-release", 0.9)
    add_item_results(late, all_pass)
    late.submission.model.__class__.objects.filter(pk=late.submission.model_id).update(release_date=date(2024, 6, 1))

    board = client.get("/api/benchmarks/multi-lcb/leaderboard/?from=2024-01-01").json()
    rows = {r["model"]: r for r in board["rows"]}
    assert rows["memorizer"]["scores"]["pass@1"]["value"] == pytest.approx(0.25)  # python 1/2, rust 0/2 in the window
    assert rows["memorizer"]["scores"]["pass@1"]["n"] == 4  # items (2 problems x 2 languages) in the window
    assert rows["fresh"]["scores"]["pass@1"]["value"] == 1.0 and rows["fresh"]["rank"] == 1
    assert rows["late-release"]["contaminated"] and rows["late-release"]["rank"] is None
    assert "on or after the window's start 2024-01-01" in rows["late-release"]["unranked_reason"]
    html = client.get("/benchmarks/multi-lcb/?from=2024-01-01").content.decode()
    assert "contaminated: released 2024-06-01" in html and 'value="2024-01-01"' in html
    # the htmx filter swaps one region: the window's note, the table and the chart, never nested
    partial = client.get("/benchmarks/multi-lcb/?from=2024-01-01", HTTP_HX_REQUEST="true").content.decode()
    assert partial.count('id="leaderboard"') == 1 and "<html" not in partial
    assert "Scores recomputed over problems dated 2024-01-01" in partial and 'class="chart"' in partial
    assert 'hx-target="#leaderboard" hx-swap="outerHTML"' in html
    everything = {r["model"]: r for r in client.get("/api/benchmarks/multi-lcb/leaderboard/").json()["rows"]}
    assert not everything["late-release"]["contaminated"]  # no window: no flag
    # one reading of the query for the page and the API: a bad date is refused by both, naming it
    refused = client.get("/api/benchmarks/multi-lcb/leaderboard/?from=yesterday")
    assert refused.status_code == 400 and refused.json()["field"] == "from"
    page = client.get("/benchmarks/multi-lcb/?from=yesterday")
    assert (
        page.status_code == 400
        and "from: &#x27;yesterday&#x27; is not a date; use a date like 2025-02-01" in page.content.decode()
    )
    assert client.get("/benchmarks/multi-lcb/?from=yesterday&format=csv").status_code == 400


def test_the_api_schema_describes_the_leaderboard_it_returns(client, multi_lcb, user):
    scored_run(multi_lcb, user, "alpha", 0.30)
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/benchmarks/{slug}/leaderboard/"]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    components = schema["components"]["schemas"]
    board_schema = components[ref.rsplit("/", 1)[1]]
    row_schema = components[board_schema["properties"]["rows"]["items"]["$ref"].rsplit("/", 1)[1]]
    board = client.get("/api/benchmarks/multi-lcb/leaderboard/").json()
    assert set(board) == set(board_schema["properties"])
    assert set(board["rows"][0]) == set(row_schema["properties"])
    download = client.get("/benchmarks/multi-lcb/?format=json").json()  # the page's JSON download is the same document
    assert download["rows"] == board["rows"] and set(download) == set(board)
    header = client.get("/benchmarks/multi-lcb/?format=csv").content.decode().splitlines()[0]
    assert header.startswith("rank,model,model_slug,run,dataset_version") and "pass@1:ci_low" in header


def test_a_refused_upload_on_the_submit_page_is_a_400_with_its_problems(client, multi_lcb, user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(user)
    bad = SimpleUploadedFile("p.jsonl", b'{"item_id": "t1_a/python"}\n', content_type="application/jsonl")
    response = client.post(
        "/submit/", {"benchmark": multi_lcb.pk, "model_name": "m", "predictions": bad, "is_public": "on"}
    )
    page = response.content.decode()
    assert response.status_code == 400 and "missing or not a string" in page and "nothing was stored" in page, page[
        page.find("<main") :
    ][:3000]
    assert client.get("/submit/").status_code == 200


def test_the_schema_says_a_model_without_an_upload_has_a_null_weights_upload(client):
    schema = client.get("/api/schema/?format=json").json()
    model = schema["components"]["schemas"]["Model"]["properties"]["weights_upload"]
    assert model.get("nullable") is True, model
