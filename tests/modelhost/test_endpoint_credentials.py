"""A user name and password written into an endpoint's URL (``http://user:password@host/v1``): refused at
registration on the page and the API, naming the field and pointing to the API key field; and a row stored
before that refusal never shows them to anyone signed out (model page, model and profile API, models index,
submission page and API, run API), nor in what a run recorded with the address. No worker needed."""

from __future__ import annotations

import html

import pytest
from rest_framework.test import APIClient

from leaderboard.catalog.models import Model
from leaderboard.modelhost import services
from leaderboard.runs import services as submissions
from leaderboard.runs.models import EvaluationRun, GenerationJob
from tests.modelhost.conftest import api_for

pytestmark = pytest.mark.django_db

PASSWORD = "hunter2-s3cret"
CREDENTIALED = f"http://alice:{PASSWORD}@127.0.0.1:9/v1"
SHOWN = "http://127.0.0.1:9/v1"  # the same URL by hand, its "alice:<password>@" taken out


@pytest.fixture(autouse=True)
def no_broker(sent_tasks):
    """Nothing is sent to a queue in these tests: record what would be."""
    return sent_tasks


@pytest.mark.parametrize(
    "url", [CREDENTIALED, "https://sk-live-123@api.example.com/v1", "http://alice:@127.0.0.1:9/v1"]
)
def test_the_service_refuses_credentials_in_the_url_naming_the_field(user, url):
    with pytest.raises(services.ModelRefused) as refused:
        services.model_register(
            owner=user,
            name="m",
            spec=services.ModelSource(source="endpoint", endpoint_base_url=url, endpoint_model="m"),
        )
    assert refused.value.field == "endpoint_base_url"
    assert str(refused.value).startswith("endpoint_base_url: the URL holds a user name or password")
    assert "put the key in the API key field" in str(refused.value)
    assert not Model.objects.exists()


def test_the_register_page_and_the_api_refuse_credentials_in_the_url(user, client):
    client.force_login(user)
    page = client.post(
        "/models/register/",
        {
            "name": "leaky",
            "source": "endpoint",
            "modality": "text",
            "is_public": "on",
            "endpoint_base_url": CREDENTIALED,
            "endpoint_model": "m",
        },
    )
    assert page.status_code == 200  # the form again, with the error at the field
    [error] = page.context["form"].errors["endpoint_base_url"]
    assert error.startswith("endpoint_base_url: the URL holds a user name or password") and "API key field" in error
    assert error in html.unescape(page.content.decode())
    response = api_for(user).post(
        "/api/models/",
        {"name": "leaky", "source": "endpoint", "endpoint_base_url": CREDENTIALED, "endpoint_model": "m"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["field"] == "endpoint_base_url" and "API key field" in response.json()["detail"]
    assert not Model.objects.exists()


def test_an_existing_rows_credentials_are_in_no_response_to_anyone_signed_out(user, multi_lcb, client):
    model = services.model_register(
        owner=user,
        name="old-endpoint",
        spec=services.ModelSource(source="endpoint", endpoint_base_url=SHOWN, endpoint_model="m"),
    )
    # as stored before registration refused them: the URL, and what a generation recorded and reported with it
    Model.objects.filter(pk=model.pk).update(endpoint_base_url=CREDENTIALED, preflight_status="passed")
    submission = submissions.submission_create_for_model(
        owner=user, model=Model.objects.get(pk=model.pk), benchmarks=[multi_lcb]
    )
    run = submission.runs.get()
    message = f"model 'm' at {CREDENTIALED} refused the request (HTTP 500: boom)"
    EvaluationRun.objects.filter(pk=run.pk).update(
        status="failed",
        failure_kind="endpoint_error",
        failure_message=message,
        log=f"calling {CREDENTIALED}/chat/completions",
        environment={"generation": {"server": "endpoint", "base_url": CREDENTIALED, "model": "m", "api_key": ""}},
    )
    GenerationJob.objects.filter(submission=submission).update(
        status="failed", failure_kind="endpoint_error", failure_message=message, log=message
    )
    anonymous = APIClient()
    paths = [
        f"/models/{model.slug}/",
        f"/api/models/{model.slug}/",
        f"/api/models/{model.slug}/profile/",
        "/models/",
        "/api/models/",
        "/api/models/index/",
        f"/submissions/{submission.pk}/",
        f"/api/submissions/{submission.pk}/",
        f"/api/runs/{run.pk}/",
    ]
    for path in paths:
        response = anonymous.get(path)
        assert response.status_code == 200, path
        body = response.content.decode()
        assert PASSWORD not in body and "alice:" not in body, path
    # the address itself is still shown, without them
    assert f"Endpoint <code>{SHOWN}</code>" in anonymous.get(f"/models/{model.slug}/").content.decode()
    assert anonymous.get(f"/api/models/{model.slug}/").json()["endpoint_base_url"] == SHOWN
    api_run = anonymous.get(f"/api/runs/{run.pk}/").json()
    assert api_run["environment"]["generation"]["base_url"] == SHOWN
    assert api_run["failure_message"] == f"model 'm' at {SHOWN} refused the request (HTTP 500: boom)"
    assert f"model &#x27;m&#x27; at {SHOWN} refused" in anonymous.get(f"/submissions/{submission.pk}/").content.decode()


def test_what_a_run_records_and_a_preflight_says_of_such_an_address_leaves_them_out():
    from evaluators.llm.preflight import preflight_endpoint
    from evaluators.llm.types import Endpoint

    assert Endpoint(CREDENTIALED, "m", api_key="sk-1").redacted() == {"base_url": SHOWN, "model": "m", "api_key": "***"}
    report = preflight_endpoint(Endpoint(CREDENTIALED, "m"), timeout_s=5)  # nothing listens on port 9
    [(field, problem)] = report.problems
    assert field == "base_url" and problem.startswith(f"{SHOWN} is not reachable") and PASSWORD not in problem
