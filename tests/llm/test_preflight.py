"""Pre-flight on a CPU: the tiny model passes with its facts; remote code, a missing chat template,
pickle-only or broken weights, a modality mismatch, too little GPU memory, a repo not in the local
cache and endpoint faults are refused with messages naming the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluators.llm.preflight import (
    PreflightReport,
    model_modalities,
    preflight_endpoint,
    preflight_hf,
    preflight_weights,
)
from evaluators.llm.types import Endpoint
from tests.support.openai_server import OpenAIServer, Reply


@pytest.fixture
def model_copy(tiny_model_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "model"
    shutil.copytree(tiny_model_dir, copy)
    return copy


def fields(report: PreflightReport) -> list[str]:
    return [f for f, _ in report.problems]


def edit_json(path: Path, **changes) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def test_tiny_model_passes_with_facts(tiny_model_dir: Path):
    report = preflight_weights(tiny_model_dir, required_modalities=["text"], gpu_memory_gb=80)
    assert report.ok, report.problems
    facts = report.facts
    assert facts["architecture"] == "LlamaForCausalLM" and facts["has_chat_template"] is True
    assert facts["dtype"] == "float32" and facts["modality"] == ["text"]
    assert facts["parameters_source"] == "safetensors" and 100_000 < facts["parameters"] < 1_000_000
    assert facts["weights_bytes"] == facts["parameters"] * 4
    assert facts["estimated_gpu_memory_gb"] == pytest.approx(facts["weights_bytes"] * 1.2 / 1024**3 + 1.0, abs=0.01)
    assert PreflightReport.from_dict(json.loads(json.dumps(report.to_dict()))).to_dict() == report.to_dict()


def test_remote_code_config_is_refused(model_copy: Path):
    edit_json(model_copy / "config.json", auto_map={"AutoModelForCausalLM": "modeling_x.XForCausalLM"})
    report = preflight_weights(model_copy)
    assert fields(report) == ["config"] and "needs remote code" in report.problems[0][1]


def test_unknown_model_type_is_refused(model_copy: Path):
    edit_json(model_copy / "config.json", model_type="my_secret_arch")
    report = preflight_weights(model_copy)
    assert "config" in fields(report)
    assert "'my_secret_arch' is not an architecture transformers knows" in dict(report.problems)["config"]


def test_missing_chat_template_is_refused(model_copy: Path):
    (model_copy / "chat_template.jinja").unlink()
    edit_json(model_copy / "tokenizer_config.json", chat_template=None)
    report = preflight_weights(model_copy)
    assert fields(report) == ["chat_template"] and report.facts["has_chat_template"] is False


def test_modality_mismatch_and_memory_are_refused(tiny_model_dir: Path):
    report = preflight_weights(tiny_model_dir, required_modalities=["text", "video"], gpu_memory_gb=0.5)
    problems = dict(report.problems)
    assert "need video input" in problems["modality"] and "has no video part" in problems["modality"]
    assert "needs about 1.0 GiB of GPU memory" in problems["parameters"]


def test_modalities_come_from_the_config():
    assert model_modalities({"model_type": "llama"}) == ["text"]
    assert model_modalities({"model_type": "llava", "vision_config": {}}) == ["text", "image"]
    assert model_modalities({"model_type": "qwen2_vl", "vision_config": {}, "video_token_id": 5}) == [
        "text",
        "image",
        "video",
    ]


def test_broken_and_pickle_weights_are_refused(model_copy: Path):
    (model_copy / "model.safetensors").write_bytes(b"\xff" * 64)
    assert "not a valid safetensors file" in dict(preflight_weights(model_copy).problems)["weights"]
    (model_copy / "model.safetensors").rename(model_copy / "pytorch_model.bin")
    report = preflight_weights(model_copy)
    assert "safetensors weights are required" in dict(report.problems)["weights"]
    assert report.facts["parameters_source"] == "config"


def test_hub_repo_from_the_local_cache(tiny_model_dir: Path, tmp_path: Path):
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo_dir = tmp_path / "hub" / "models--org--tiny"
    shutil.copytree(tiny_model_dir, repo_dir / "snapshots" / commit)
    (repo_dir / "refs").mkdir()
    (repo_dir / "refs" / "main").write_text(commit)
    report = preflight_hf("org/tiny", "main", cache_dir=str(tmp_path / "hub"))
    assert report.ok, report.problems
    assert report.facts["commit"] == commit and report.facts["repo"] == "org/tiny"

    missing = preflight_hf("org/tiny", "no-such-branch", cache_dir=str(tmp_path / "hub"))
    assert fields(missing) == ["revision"]
    assert "not found in this machine's local Hugging Face cache" in missing.problems[0][1]
    assert "worker machines fetch it" in missing.problems[0][1]


def test_endpoint_answers():
    with OpenAIServer(api_key="k") as server:
        report = preflight_endpoint(Endpoint(server.base_url, "test-model", api_key="k"))
    assert report.ok and report.facts["models_listed"] == ["test-model"]
    assert server.requests[0]["max_tokens"] == 1


def test_endpoint_wrong_key_unknown_model_and_unreachable():
    with OpenAIServer(api_key="k") as server:
        wrong_key = preflight_endpoint(Endpoint(server.base_url, "test-model", api_key="nope-secret"))
        unknown = preflight_endpoint(Endpoint(server.base_url, "gpt-9", api_key="k"))
    assert fields(wrong_key) == ["api_key"] and "refused the API key" in wrong_key.problems[0][1]
    assert "nope-secret" not in json.dumps(wrong_key.to_dict())
    assert fields(unknown) == ["model"] and "'gpt-9' is not among the models" in unknown.problems[0][1]
    unreachable = preflight_endpoint(Endpoint(server.base_url, "test-model"), timeout_s=2)  # stopped
    assert fields(unreachable) == ["base_url"] and "not reachable" in unreachable.problems[0][1]


def test_endpoint_that_does_not_list_models_is_checked_by_a_chat():
    with OpenAIServer(lambda req: Reply(status=404, error={"message": "no such model"}), models=[]) as server:
        report = preflight_endpoint(Endpoint(server.base_url, "test-model"))
    assert fields(report) == ["model"] and "not found on" in report.problems[0][1]


def safetensors_with_header(path: Path, header: bytes) -> None:
    path.write_bytes(len(header).to_bytes(8, "little") + header)


@pytest.mark.parametrize(
    "case, field_name, message",
    [
        ("config is a list", "config", "must be a JSON object ({...}), but it is a JSON list"),
        ("hidden_size is a string", "config", "expected int, got str"),
        ("config is not JSON", "config", "config.json is not valid JSON"),
        ("auto_map is a number", "config", "needs remote code"),
        ("tokenizer files are garbage", "tokenizer", "the tokenizer does not load"),
        ("safetensors header is garbage", "weights", "is not a valid safetensors file"),
        ("safetensors header is a list", "weights", "its header is a JSON list"),
        ("a tensor's shape holds a string", "weights", "a shape is a list of non-negative integers"),
        ("a tensor's offsets are reversed", "weights", "0 <= start <= end"),
        ("safetensors file is 3 bytes", "weights", "shorter than a safetensors header"),
    ],
)
def test_malformed_files_are_refusals_never_exceptions(model_copy: Path, case: str, field_name: str, message: str):
    config = model_copy / "config.json"
    weights = model_copy / "model.safetensors"
    if case == "config is a list":
        config.write_text("[1, 2]")
    elif case == "hidden_size is a string":
        edit_json(config, hidden_size="x")
    elif case == "config is not JSON":
        config.write_text("{nope")
    elif case == "auto_map is a number":
        edit_json(config, auto_map=5)
    elif case == "tokenizer files are garbage":
        for name in ("tokenizer.json", "tokenizer_config.json"):
            (model_copy / name).write_bytes(b"\x00garbage{")
    elif case == "safetensors header is garbage":
        safetensors_with_header(weights, b"[1,2,3,4,5")
    elif case == "safetensors header is a list":
        safetensors_with_header(weights, b"[1, 2]")
    elif case == "a tensor's shape holds a string":
        safetensors_with_header(
            weights, json.dumps({"w": {"dtype": "F32", "shape": ["x"], "data_offsets": [0, 4]}}).encode()
        )
    elif case == "a tensor's offsets are reversed":
        safetensors_with_header(
            weights, json.dumps({"w": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}}).encode()
        )
    elif case == "safetensors file is 3 bytes":
        weights.write_bytes(b"abc")
    report = preflight_weights(model_copy)
    assert not report.ok
    assert field_name in fields(report) and message in dict(report.problems)[field_name], report.problems
