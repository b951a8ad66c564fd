"""What a review found and what now holds: a pre-flight always ends (storage faults are retried as
"could not check", an unexpected error is a failed pre-flight saying so, an archive gone from storage
is the upload's fault); endpoints on private addresses are refused at registration and again when
reached; pre-flight details are for the owner and staff; an oversized upload part is refused before
its body is read. No worker needed: the pre-flight runs in the test's process, storage is moto's S3
server (scripts/test)."""

from __future__ import annotations

import hashlib
import io
import uuid

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.test import override_settings
from rest_framework.test import APIClient

from leaderboard import task_sends
from leaderboard.catalog.models import Model
from leaderboard.modelhost import services
from leaderboard.modelhost.api import OctetStreamParser
from leaderboard.modelhost.uploads import S3PartStore
from tests.modelhost.conftest import api_for
from tests.support.openai_server import OpenAIServer

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(sent_tasks):
    """Nothing is sent to a queue in these tests: record what would be."""
    return sent_tasks


def weights_model(user, name: str = "w") -> Model:
    """A registered weights model whose (unique, never cached) archive is in moto's S3."""
    assert settings.S3_BUCKET, "run through scripts/test (moto's S3 server)"
    archive = ContentFile(uuid.uuid4().bytes * 64, name="m.tar")
    upload = services.upload_from_file(owner=user, file=archive)
    return services.model_register(
        owner=user, name=name, spec=services.ModelSource(source="weights", weights_upload_id=upload.pk)
    )


def stored(model: Model) -> Model:
    return Model.objects.get(pk=model.pk)


# --- a pre-flight always ends -----------------------------------------------------------------------


def test_archive_missing_from_storage_fails_the_preflight_naming_the_upload(user):
    model = weights_model(user)
    store = S3PartStore()
    store.client.delete_object(Bucket=store.bucket, Key=model.weights_upload.storage_key)
    assert services.model_preflight_run(model_id=model.pk) == Model.PREFLIGHT_FAILED
    report = stored(model).preflight_report
    assert report["problems"][0][0] == "weights" and "no longer in storage" in report["problems"][0][1]
    assert "upload the weights again" in report["problems"][0][1]


def test_storage_unreachable_is_retried_then_reported_as_could_not_check(
    user, no_broker, django_capture_on_commit_callbacks
):
    model = weights_model(user)
    down = {
        **settings.STORAGES,
        "default": {
            **settings.STORAGES["default"],
            "OPTIONS": {**settings.STORAGES["default"]["OPTIONS"], "endpoint_url": "http://127.0.0.1:9"},
        },
    }  # nothing listens on port 9
    with override_settings(STORAGES=down, PREFLIGHT_RETRIES=1, PREFLIGHT_RETRY_SECONDS=30):
        with django_capture_on_commit_callbacks(execute=True):
            assert services.model_preflight_run(model_id=model.pk) == Model.PREFLIGHT_PENDING
        first = stored(model)
        assert (
            "could not check the model" in first.preflight_report["notice"]
            and "not of the model" in first.preflight_report["notice"]
        )
        assert first.preflight_report["problems"] == [] and first.preflight_checked_at is not None
        assert (
            task_sends.Message(task_sends.PREFLIGHT_MODEL, (model.pk,), "interactive", 30) in no_broker
        )  # tried again later
        with django_capture_on_commit_callbacks(execute=True):
            assert services.model_preflight_run(model_id=model.pk) == Model.PREFLIGHT_FAILED
    report = stored(model).preflight_report
    assert report["problems"][0][0] == "preflight" and "tried 2 times" in report["problems"][0][1]
    assert "S3 cannot be reached" in report["problems"][0][1] and "infrastructure_attempts" not in report
    assert len(no_broker) == 1  # one retry, no more (the registration's own send is not captured)
    # storage is back: a new request starts from zero and passes the storage step
    assert services.model_preflight_run(model_id=model.pk) == Model.PREFLIGHT_FAILED
    assert "cannot be read as tar" in stored(model).preflight_report["problems"][0][1]  # the archive's own fault, now


@override_settings(ALLOW_PRIVATE_ENDPOINTS=True)  # no DNS look-up for the example host
def test_an_unexpected_error_is_a_failed_preflight_that_says_so(user):
    from cryptography.fernet import Fernet

    with override_settings(SECRETS_KEY=Fernet.generate_key().decode()):  # a key the worker no longer has
        model = services.model_register(
            owner=user,
            name="e",
            spec=services.ModelSource(
                source="endpoint",
                endpoint_base_url="https://api.example.com/v1",
                endpoint_model="m",
                endpoint_api_key="sk-1",
            ),
        )
    assert services.model_preflight_run(model_id=model.pk) == Model.PREFLIGHT_FAILED
    ((field, message),) = stored(model).preflight_report["problems"]
    assert field == "preflight" and "unexpected error (ValueError" in message and "cannot be decrypted" in message


# --- endpoints on private addresses -----------------------------------------------------------------


@override_settings(ALLOW_PRIVATE_ENDPOINTS=False)
@pytest.mark.parametrize(
    "url, kind",
    [
        ("http://127.0.0.1:8000/v1", "loopback"),
        ("http://localhost/v1", "loopback"),
        ("http://[::1]:8080/v1", "loopback"),
        ("http://[::ffff:127.0.0.1]/v1", "loopback"),
        ("http://169.254.169.254/latest", "link-local"),
        ("http://10.1.2.3/v1", "private"),
        ("https://192.168.0.10/v1", "private"),
        ("http://0.0.0.0:80/v1", "unspecified"),
        ("http://224.0.0.1/v1", "multicast"),
        ("http://100.64.0.1/v1", "reserved"),
    ],
)
def test_registration_refuses_endpoints_on_non_public_addresses(user, url, kind):
    with pytest.raises(services.ModelRefused) as refused:
        services.model_register(
            owner=user,
            name="x",
            spec=services.ModelSource(source="endpoint", endpoint_base_url=url, endpoint_model="m"),
        )
    assert refused.value.field == "endpoint_base_url" and f"a {kind} address" in str(refused.value)
    assert not Model.objects.filter(name="x").exists()


@override_settings(ALLOW_PRIVATE_ENDPOINTS=False)
def test_registration_accepts_a_public_address_and_refuses_a_host_that_does_not_resolve(user):
    model = services.model_register(
        owner=user,
        name="pub",
        spec=services.ModelSource(source="endpoint", endpoint_base_url="https://8.8.8.8/v1", endpoint_model="m"),
    )
    assert model.endpoint_base_url == "https://8.8.8.8/v1"
    with pytest.raises(services.ModelRefused, match="does not resolve") as refused:
        services.model_register(
            owner=user,
            name="nx",
            spec=services.ModelSource(
                source="endpoint", endpoint_base_url="http://no-such-host.invalid/v1", endpoint_model="m"
            ),
        )
    assert refused.value.field == "endpoint_base_url"


@override_settings(ALLOW_PRIVATE_ENDPOINTS=True)  # at registration; refused later
def test_an_endpoint_that_turns_private_later_is_refused_at_preflight_and_generation(user):
    with OpenAIServer() as server:
        model = services.model_register(
            owner=user,
            name="later",
            spec=services.ModelSource(
                source="endpoint", endpoint_base_url=server.base_url, endpoint_model="test-model"
            ),
        )  # allowed here (the tests' setting)
        with override_settings(ALLOW_PRIVATE_ENDPOINTS=False):  # as if its DNS now pointed inside
            assert services.model_preflight_run(model_id=model.pk) == Model.PREFLIGHT_FAILED
            with pytest.raises(services.EndpointNotAllowed, match="a loopback address"):
                services.model_endpoint(stored(model))  # what generation calls to reach it
        assert server.requests == []
    ((field, message),) = stored(model).preflight_report["problems"]
    assert field == "base_url" and "127.0.0.1, a loopback address" in message


@override_settings(ALLOW_PRIVATE_ENDPOINTS=True)
def test_preflight_details_are_for_the_owner_and_staff(user, other_user, client):
    model = services.model_register(
        owner=user,
        name="hidden",
        spec=services.ModelSource(source="endpoint", endpoint_base_url="http://127.0.0.1:9/v1", endpoint_model="m"),
    )
    secret_listing = "internal-model-listing-42"
    Model.objects.filter(pk=model.pk).update(
        preflight_status="failed",
        preflight_report={
            "ok": False,
            "problems": [["model", f"not among the models: {secret_listing}"]],
            "facts": {"models_listed": [secret_listing]},
        },
    )
    owner_view = api_for(user).get(f"/api/models/{model.slug}/").json()
    assert secret_listing in str(owner_view["preflight_report"])
    for client_ in (api_for(other_user), APIClient()):  # another user; anyone signed out
        public = client_.get(f"/api/models/{model.slug}/").json()
        assert public["preflight_status"] == "failed" and public["preflight_report"] == {"ok": False}
    listing = api_for(other_user).get("/api/models/").content.decode()
    assert "hidden" in listing and secret_listing not in listing
    page = client.get(f"/models/{model.slug}/").content.decode()
    assert "Failed" in page and secret_listing not in page
    client.force_login(user)
    assert secret_listing in client.get(f"/models/{model.slug}/").content.decode()


# --- upload parts -----------------------------------------------------------------------------------


def test_an_oversized_part_is_refused_by_its_content_length_before_reading(user):
    client = api_for(user)
    data = b"w" * 1000
    upload = client.post(
        "/api/uploads/",
        {"filename": "m.tar", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()},
        format="json",
    ).json()
    url = f"/api/uploads/{upload['id']}/parts/1/"
    too_big = client.put(url, data * 3, content_type="application/octet-stream")
    assert too_big.status_code == 413 and too_big.json()["field"] == "part"
    assert "the request is 3000 bytes (Content-Length), but this part is 1000 bytes" in too_big.json()["detail"]
    assert client.get(f"/api/uploads/{upload['id']}/").json()["parts_received"] == []
    out_of_range = client.put(f"/api/uploads/{upload['id']}/parts/2/", data, content_type="application/octet-stream")
    assert out_of_range.status_code == 400 and "out of range" in out_of_range.json()["detail"]
    assert client.put(url, data, content_type="application/octet-stream").status_code == 200


def test_the_part_parser_reads_no_more_than_the_part():
    assert OctetStreamParser().parse(io.BytesIO(b"x" * 100), parser_context={"max_bytes": 10}) == b"x" * 10
    with override_settings(UPLOAD_PART_BYTES=20):
        assert len(OctetStreamParser().parse(io.BytesIO(b"x" * 100), parser_context={})) == 20


@override_settings(UPLOADS_OPEN_PER_USER=3)
def test_one_account_may_have_only_a_few_unfinished_uploads(user, other_user):
    """A reviewer opened 173 uploads, each declaring up to 2 TiB: an account now has a bounded number open."""
    client = api_for(user)
    body = {"filename": "m.tar", "size": 10, "sha256": "0" * 64}
    made = [client.post("/api/uploads/", body, format="json") for _ in range(3)]
    assert all(r.status_code == 201 for r in made), [r.content for r in made]
    refused = client.post("/api/uploads/", body, format="json")
    assert refused.status_code == 400 and "3 unfinished uploads" in refused.json()["detail"], refused.content
    assert api_for(other_user).post("/api/uploads/", body, format="json").status_code == 201  # per account
    data = b"w" * 10
    finished = client.post("/api/uploads/", {**body, "sha256": hashlib.sha256(data).hexdigest()}, format="json")
    assert finished.status_code == 400
    first = made[0].json()["id"]
    from leaderboard.modelhost.models import WeightsUpload

    WeightsUpload.objects.filter(pk=first).update(status=WeightsUpload.STATUS_COMPLETE)  # one finished: room again
    assert client.post("/api/uploads/", body, format="json").status_code == 201
