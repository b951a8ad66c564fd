"""The tiny vision model: made here (no hub), recognised as an image model by the pre-flight, and served
by the real `transformers serve` on the CPU, which reads every image a request sends: each one adds
the vision tower's tokens to the prompt, and a broken image is refused by the server."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from evaluators.core.media import DirectoryMedia, media_part
from evaluators.llm.client import ChatClient
from evaluators.llm.preflight import model_modalities
from evaluators.llm.server import ModelServer
from evaluators.llm.server_command import ServerSpec
from evaluators.llm.tiny import IMAGE_SIZE, PATCH_SIZE, create_tiny_vision_model
from evaluators.llm.types import ModelError

TOKENS_PER_IMAGE = (IMAGE_SIZE // PATCH_SIZE) ** 2 + 1  # the patches and the class token


def photo(colour: str, size=(640, 480)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "JPEG", quality=95)
    return out.getvalue()


@pytest.fixture(scope="module")
def vision_model(tmp_path_factory) -> Path:
    return create_tiny_vision_model(tmp_path_factory.mktemp("models") / "tiny-llava")


def test_the_tiny_vision_model_is_small_deterministic_and_an_image_model(vision_model, tmp_path):
    config = json.loads((vision_model / "config.json").read_text())
    assert config["model_type"] == "llava" and model_modalities(config) == ["text", "image"]
    assert "<image>" in (vision_model / "chat_template.jinja").read_text()
    again = create_tiny_vision_model(tmp_path / "again")
    assert (again / "model.safetensors").read_bytes() == (vision_model / "model.safetensors").read_bytes()
    assert sum(p.stat().st_size for p in vision_model.iterdir()) < 4_000_000


def test_transformers_serve_reads_every_image_of_a_request(vision_model, tmp_path):
    media = DirectoryMedia(tmp_path / "media")
    red, blue = media.put(photo("red"), ext="jpg"), media.put(photo("blue", (300, 900)), ext="jpg")
    spec = ServerSpec(
        kind="transformers", model=str(vision_model), start_timeout_s=120, log_path=str(tmp_path / "server.log")
    )
    with ModelServer(spec) as server:
        client = ChatClient(server.endpoint(), timeout_s=60)

        def prompt_tokens(*keys: str) -> int:
            content = [{"type": "text", "text": "What is in the image?"}] + [media_part(k) for k in keys]
            result = client.chat([{"role": "user", "content": content}], max_tokens=2, media=media)
            assert result.usage.completion_tokens >= 1
            return result.usage.prompt_tokens

        text_only = prompt_tokens()
        assert prompt_tokens(red) == text_only + TOKENS_PER_IMAGE
        assert prompt_tokens(red, blue, red) == text_only + 3 * TOKENS_PER_IMAGE
        broken = media.put(b"\xff\xd8 not a jpeg", ext="jpg")
        with pytest.raises(ModelError):
            prompt_tokens(broken)
        client.close()
