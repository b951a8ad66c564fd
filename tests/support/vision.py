"""The tiny vision model as a user brings it: written here (no hub), uploaded through the API as a tar
archive of weights, registered as an image model and pre-flighted by the real worker. Used by the
IndicVisionBench and Video NIAH end-to-end tests."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

from evaluators.llm.tiny import create_tiny_vision_model
from leaderboard.catalog.models import Model
from tests.conftest import wait_for
from tests.modelhost.conftest import register


def vision_archive(tmp_path: Path) -> bytes:
    directory = create_tiny_vision_model(tmp_path / "tiny-llava")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(directory, arcname="tiny-llava")
    return buffer.getvalue()


def upload_vision_model(api, tmp_path: Path, name: str = "tiny-llava") -> Model:
    """Upload, register (modality image) and pre-flight the tiny vision model; the passed Model."""
    data = vision_archive(tmp_path)
    created = api.post(
        "/api/uploads/",
        {"filename": f"{name}.tar", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()},
        format="json",
    )
    assert created.status_code == 201, created.content
    upload = created.json()
    assert (
        api.put(f"/api/uploads/{upload['id']}/parts/1/", data, content_type="application/octet-stream").status_code
        == 200
    )
    assert api.post(f"/api/uploads/{upload['id']}/complete/").json()["status"] == "complete"
    model = register(api, name=name, source="weights", weights_upload=upload["id"], modality="image")
    wait_for(
        lambda: Model.objects.get(slug=model["slug"]).preflight_status != "pending", timeout=120, what="the pre-flight"
    )
    checked = Model.objects.get(slug=model["slug"])
    assert checked.preflight_status == Model.PREFLIGHT_PASSED and checked.preflight_report["facts"]["modality"] == [
        "text",
        "image",
    ], checked.preflight_report
    return checked
