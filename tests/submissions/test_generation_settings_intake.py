"""A model's generation settings are read at the intake as the generating worker reads them
(``GenerationSettings``): an unknown setting or one out of its bounds is refused by the web form and the
API with the setting named, and no submission is written. They used to be checked for shape only, so
the submission was accepted and its generation job failed later on the worker."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.catalog.models import Model
from leaderboard.runs.models import Submission

pytestmark = pytest.mark.django_db

# (settings, text the refusal must hold): the names and bounds are GenerationSettings' documented ones
# (temperature 0..2, top_p 0..1, n a whole number from 1)
BAD = [
    ({"temprature": 0.2}, "temprature"),
    ({"n": 1, "temperature": 3.5}, "temperature"),
    ({"top_p": 1.5}, "top_p"),
    ({"n": 0}, "'n'"),
    ({"max_tokens": "many"}, "max_tokens"),
]


@pytest.fixture
def model(user) -> Model:
    return Model.objects.create(
        owner=user,
        name="settings-model",
        slug="settings-model",
        source=Model.SOURCE_HF,
        hf_repo="org/m",
        hf_revision="a" * 40,
        preflight_status=Model.PREFLIGHT_PASSED,
    )


@pytest.mark.parametrize(("settings", "named"), BAD)
def test_the_api_refuses_a_bad_setting_naming_it_and_writes_nothing(multi_lcb, user, model, settings, named):
    client = APIClient()
    client.force_authenticate(user)
    answer = client.post(
        "/api/submissions/from-model/",
        {"model": model.slug, "benchmarks": ["multi-lcb"], "generation_settings": settings},
        format="json",
    )
    assert answer.status_code == 400, answer.content
    problem = " ".join(str(p) for p in answer.json()["generation_settings"])
    assert named in problem
    assert not Submission.objects.exists()


@pytest.mark.parametrize(("settings", "named"), BAD)
def test_the_form_refuses_a_bad_setting_naming_it_and_writes_nothing(multi_lcb, user, model, settings, named):
    import json

    client = Client()
    client.force_login(user)
    answer = client.post(
        f"/models/{model.slug}/submit/",
        {"benchmarks": [multi_lcb.pk], "generation_settings": json.dumps(settings), "is_public": "on"},
    )
    assert answer.status_code == 302
    shown = " ".join(str(m) for m in get_messages(answer.wsgi_request))
    assert "generation_settings" in shown and named in shown
    assert not Submission.objects.exists()


def test_good_settings_are_still_taken_by_both(multi_lcb, user, model):
    good: dict[str, Any] = {"n": 2, "temperature": "0.5", "top_p": 1, "max_tokens": 64, "seed": 7}
    client = APIClient()
    client.force_authenticate(user)
    answer = client.post(
        "/api/submissions/from-model/",
        {"model": model.slug, "benchmarks": ["multi-lcb"], "generation_settings": good},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    web = Client()
    web.force_login(user)
    page = web.post(f"/models/{model.slug}/submit/", {"benchmarks": [multi_lcb.pk], "generation_settings": '{"n": 1}'})
    assert page.status_code == 302 and "/submissions/" in page["Location"]
    assert Submission.objects.count() == 2


def test_a_models_bad_defaults_are_refused_by_the_service_naming_the_setting(multi_lcb, user, model):
    """Defaults set in the admin are merged under the submitter's own settings and read the same way."""
    from leaderboard.runs import services

    model.generation_defaults = {"stop": ["\n"]}
    model.save()
    with pytest.raises(services.SubmissionRefused, match="unknown setting 'stop'") as refused:
        services.submission_create_for_model(owner=user, model=model, benchmarks=[multi_lcb], generation_settings={})
    assert refused.value.field == "generation_settings"
    assert not Submission.objects.exists()
