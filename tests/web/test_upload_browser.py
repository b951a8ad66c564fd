"""The weights upload page in Debian's Chromium (Playwright): static/js/upload.js hashes a model
archive, sends it to S3 (moto's server) in 5 MB parts, stops when a part's request fails, resumes
after a page reload sending only the parts not received, and completes; the upload then registers as
a model whose pre-flight passes on the real Celery worker."""

from __future__ import annotations

import hashlib
import io
import random
import re
import tarfile
from pathlib import Path

import pytest
from django.test import override_settings

from evaluators.llm.tiny import create_tiny_model
from leaderboard.catalog.models import Model
from leaderboard.modelhost.models import WeightsUpload
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for, register

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
PART = 5 * 1024 * 1024  # S3's smallest part (but the last)


def model_archive(path: Path) -> Path:
    """The tiny model's directory as a tar archive of three parts (padded with an extra file)."""
    directory = create_tiny_model(path.parent / "tiny-llama")
    (directory / "padding.bin").write_bytes(random.Random(1).randbytes(2 * PART + 4096))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(directory, arcname="tiny-llama")
    path.write_bytes(buffer.getvalue())
    return path


@override_settings(UPLOAD_PART_BYTES=PART)
def test_upload_stops_on_a_failed_part_resumes_after_a_reload_and_preflights(
    live_server, page, user, celery_worker, tmp_path
):
    archive = model_archive(tmp_path / "tiny.tar")
    data = archive.read_bytes()
    assert -(-len(data) // PART) == 3
    parts_sent: list[int] = []
    page.on(
        "request",
        lambda request: (
            parts_sent.append(int(re.search(r"/parts/(\d+)/", request.url).group(1)))
            if request.method == "PUT"
            else None
        ),
    )
    failed: list[str] = []

    def drop_part_2_once(route) -> None:
        if failed:
            route.continue_()
        else:
            failed.append(route.request.url)
            route.abort("connectionreset")

    page.route("**/api/uploads/*/parts/2/", drop_part_2_once)

    page.goto(live_server.url + "/accounts/login/?next=/models/upload/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", "a-long-test-password")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/models/upload/")
    status = page.locator("#upload-status")
    page.set_input_files("#upload-file", str(archive))
    page.get_by_role("button", name="Upload", exact=True).click()
    status.filter(has_text="Stopped").wait_for(timeout=60_000)
    assert failed and parts_sent == [1, 2]
    assert page.eval_on_selector("#upload-progress", "p => [p.value, p.max]") == [1, 3]
    upload = WeightsUpload.objects.get(owner=user)
    assert upload.status != "complete"

    page.reload()  # the person comes back later and chooses the same file: only the missing parts go
    parts_sent.clear()
    page.set_input_files("#upload-file", str(archive))
    page.get_by_role("button", name="Upload", exact=True).click()
    status.filter(has_text="complete").wait_for(timeout=60_000)
    assert parts_sent == [2, 3]
    assert page.eval_on_selector("#upload-progress", "p => [p.value, p.max]") == [3, 3]
    assert page.get_by_role("link", name="Register a model with it").get_attribute("href").endswith("/models/register/")
    upload.refresh_from_db()
    assert (upload.status, upload.sha256, upload.size) == ("complete", hashlib.sha256(data).hexdigest(), len(data))
    assert WeightsUpload.objects.filter(owner=user).count() == 1  # resumed, not started over
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('upload:')).length") == 0

    model = register(api_for(user), name="tiny-from-browser", source="weights", weights_upload=upload.pk)
    wait_for(
        lambda: Model.objects.get(slug=model["slug"]).preflight_status != "pending", timeout=120, what="the pre-flight"
    )
    checked = Model.objects.get(slug=model["slug"])
    assert checked.preflight_status == Model.PREFLIGHT_PASSED, checked.preflight_report
