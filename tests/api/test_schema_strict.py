"""The API schema is as strict as the server: what the schema lets through is what the server takes,
so the fuzz covers the real inputs (dates as dates, pages from 1, names not blank, limit and offset
with their bounds, the votes download's real media types, generation settings of a sane shape)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from leaderboard.api.paging import MAX_LIMIT, MAX_OFFSET
from leaderboard.runs.serializers import ModelSubmissionSerializer
from tests.support.factories import scored_run
from tests.web.test_pages import add_item_results

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema() -> dict[str, Any]:
    return APIClient().get("/api/schema/?format=json").json()


def parameters(schema: dict[str, Any], path: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p["schema"] for p in schema["paths"][path]["get"]["parameters"]}


def test_the_leaderboard_query_is_typed_as_the_server_reads_it(schema):
    query = parameters(schema, "/api/benchmarks/{slug}/leaderboard/")
    assert query["from"] == {"type": "string", "format": "date"} and query["to"] == {"type": "string", "format": "date"}
    assert query["page"]["minimum"] == 1
    for path in ("/api/benchmarks/", "/api/models/", "/api/runs/", "/api/submissions/"):
        paging = parameters(schema, path)
        assert (paging["limit"]["minimum"], paging["limit"]["maximum"]) == (1, MAX_LIMIT)
        assert (paging["offset"]["minimum"], paging["offset"]["maximum"]) == (0, MAX_OFFSET)


def test_names_may_not_be_blank_and_settings_have_a_shape(schema):
    components = schema["components"]["schemas"]
    assert components["ModelRegistration"]["properties"]["name"]["minLength"] == 1
    assert components["PredictionsSubmission"]["properties"]["model_name"]["minLength"] == 1
    settings = components["ModelSubmission"]["properties"]["generation_settings"]
    assert (
        settings["type"] == "object" and settings["maxProperties"] == 64 and settings["additionalProperties"]["oneOf"]
    )


def test_the_votes_download_declares_its_real_media_types(schema):
    answer = schema["paths"]["/api/arena/ratings/votes/"]["get"]["responses"]["200"]["content"]
    assert set(answer) == {"application/x-ndjson", "application/vnd.apache.parquet"}


def test_page_zero_is_refused_naming_the_page(multi_lcb):
    for page in ("0", "-1"):
        answer = APIClient().get(f"/api/benchmarks/multi-lcb/leaderboard/?page={page}")
        assert answer.status_code == 400 and answer.json()["field"] == "page"


def test_a_date_window_answers_on_the_api_page_and_downloads(multi_lcb, user):
    run = scored_run(multi_lcb, user, "windowed", 0.5)
    add_item_results(run, {("t1_a", "python"): True, ("t2_a", "python"): False, ("t3_a", "python"): True})
    api = APIClient().get("/api/benchmarks/multi-lcb/leaderboard/?from=2024-01-01&to=2025-12-31")
    assert api.status_code == 200 and api.json()["window"] == {"from": "2024-01-01", "to": "2025-12-31"}
    assert api.json()["rows"][0]["scores"]["pass@1"]["n"] == 2
    for suffix in ("", "&format=json", "&format=csv"):
        assert APIClient().get(f"/benchmarks/multi-lcb/?from=2024-01-01&to=2025-12-31{suffix}").status_code == 200


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"x": value}
    return value


def test_generation_settings_nested_too_deep_or_of_another_shape_are_refused():
    def problems(settings: Any) -> dict[str, Any]:
        serializer = ModelSubmissionSerializer(
            data={"model": "m", "benchmarks": ["multi-lcb"], "generation_settings": settings}
        )
        serializer.is_valid()
        return dict(serializer.errors)

    assert problems({"n": 1, "temperature": 0.2}) == {}
    # 8 levels with the settings object itself: not too deep, but no setting the worker reads (GenerationSettings)
    assert "unknown setting 'stop'" in str(problems({"stop": nested(7)})["generation_settings"])
    assert "nested deeper than 8" in str(problems({"stop": nested(8)})["generation_settings"])
    assert "nested deeper than 8" in str(problems({"stop": nested(900)})["generation_settings"])
    assert "generation_settings" in problems(["n", 1])
    assert "generation_settings" in problems({f"k{i}": i for i in range(65)})


def test_the_service_refuses_the_same_settings_for_the_web_form_too(multi_lcb, user):
    from leaderboard.catalog.models import Model
    from leaderboard.runs import services

    model = Model.objects.create(
        owner=user,
        name="settings-model",
        slug="settings-model",
        source=Model.SOURCE_HF,
        hf_repo="org/m",
        hf_revision="a" * 40,
        preflight_status=Model.PREFLIGHT_PASSED,
    )
    with pytest.raises(services.SubmissionRefused, match="generation_settings: nested deeper than 8") as refused:
        services.submission_create_for_model(
            owner=user, model=model, benchmarks=[multi_lcb], generation_settings={"stop": nested(8)}
        )
    assert refused.value.field == "generation_settings"
    assert services.submission_create_for_model(
        owner=user, model=model, benchmarks=[multi_lcb], generation_settings={"n": 1}
    ).pk
