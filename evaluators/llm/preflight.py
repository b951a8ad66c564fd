"""Pre-flight checks on a CPU before any GPU time is spent on a model.

- ``preflight_weights(path, ...)``: the config loads without remote code, the tokenizer loads, a chat
  template exists, the parameter count comes from the safetensors headers (the header JSON only,
  never the tensors) or the config, the GPU memory it needs is estimated, and its modality (text,
  image, video) covers what the benchmarks ask for.
- ``preflight_hf(repo, revision, ...)``: the same on a hub repo, from the local cache only (offline).
- ``preflight_endpoint(endpoint)``: the endpoint lists the model (if it lists models at all) and
  answers a one-token chat.

Each returns a :class:`PreflightReport`: ``ok``, ``problems`` as (field, message) pairs a submission
page can show as they are, and ``facts`` (parameters, estimated GPU memory, modality...). Whatever a
submitter's files hold (a config that is a JSON list, a string where a number belongs, garbage
tokenizer files, a malformed safetensors header), the result is a refusal naming the file, never an
exception.
"""

from __future__ import annotations

import json
import math
import struct
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from evaluators.core.modality import MODALITIES
from evaluators.llm.types import Endpoint, ModelError, redact_userinfo

#: Bytes per parameter for the dtypes configs and safetensors name.
DTYPE_BYTES = {
    "float32": 4,
    "F32": 4,
    "float16": 2,
    "F16": 2,
    "bfloat16": 2,
    "BF16": 2,
    "float64": 8,
    "F64": 8,
    "int8": 1,
    "I8": 1,
    "U8": 1,
    "float8_e4m3fn": 1,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "I32": 4,
    "I64": 8,
    "I16": 2,
    "BOOL": 1,
}
#: The stated overhead on top of the weights: CUDA context, activations and a minimal KV cache.
MEMORY_OVERHEAD_FACTOR = 1.2
MEMORY_OVERHEAD_GB = 1.0
_VIDEO_KEYS = ("video_token_id", "video_token_index", "video_config", "video_processor")
_VISION_KEYS = ("vision_config", "image_token_id", "image_token_index", "visual", "vision_tower", "mm_vision_tower")


@dataclass
class PreflightReport:
    """What pre-flight found: ``ok`` when there are no problems."""

    problems: list[tuple[str, str]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def refuse(self, field_name: str, message: str) -> None:
        self.problems.append((field_name, message))

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": [list(p) for p in self.problems], "facts": dict(self.facts)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PreflightReport:
        return cls(problems=[(str(f), str(m)) for f, m in data.get("problems", [])], facts=dict(data.get("facts", {})))


# --- weights ------------------------------------------------------------------------------------


def preflight_weights(
    path: Path | str, *, required_modalities: Iterable[str] = ("text",), gpu_memory_gb: float | None = None
) -> PreflightReport:
    """Check a local model directory (see the module docstring); never loads the tensors."""
    path = Path(path)
    report = PreflightReport()
    if not (path / "config.json").is_file():
        report.refuse("weights", f"no config.json in the model directory {path.name!r}: is it a transformers model?")
        return report
    try:
        raw_config = json.loads((path / "config.json").read_text())
    except (ValueError, OSError) as exc:
        report.refuse("config", f"config.json is not valid JSON: {exc}")
        return report
    if not isinstance(raw_config, dict):
        report.refuse(
            "config", f"config.json must be a JSON object ({{...}}), but it is a JSON {_json_kind(raw_config)}"
        )
        return report
    config = _check_config(raw_config, path, report)
    _check_tokenizer(path, report)
    _count_parameters(path, raw_config, config, report)
    _check_modality(raw_config, report, required_modalities)
    _estimate_memory(report, gpu_memory_gb)
    return report


def _json_kind(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), "null"
    )


def _as_dict(value: Any) -> dict[str, Any]:
    """A nested config section, or {} when a malformed config has something else there."""
    return value if isinstance(value, dict) else {}


def _first_line(exc: BaseException, limit: int = 300) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines[:2])[:limit] or type(exc).__name__


def _check_config(raw: dict[str, Any], path: Path, report: PreflightReport) -> Any:
    if raw.get("auto_map"):
        auto_map = raw["auto_map"]
        shown = sorted(auto_map) if isinstance(auto_map, dict) else repr(auto_map)[:100]
        report.refuse(
            "config",
            f"the model needs remote code (config.json has 'auto_map': {shown}); "
            "only architectures built into transformers are run",
        )
        return None
    from transformers import AutoConfig

    model_type = raw.get("model_type")
    try:
        config = AutoConfig.from_pretrained(path, trust_remote_code=False)
    except Exception as exc:  # noqa: BLE001 - transformers raises many types (strict field validation too): all the config's fault
        if model_type and isinstance(exc, (ValueError, KeyError)) and str(model_type) in str(exc):
            report.refuse(
                "config",
                f"model_type {model_type!r} is not an architecture transformers knows "
                f"(custom code is not run): {_first_line(exc, 200)}",
            )
        else:
            report.refuse("config", f"config.json does not load: {_first_line(exc)}")
        return None
    architectures = getattr(config, "architectures", None)
    first = architectures[0] if isinstance(architectures, list) and architectures else config.model_type
    report.facts["architecture"] = str(first)
    report.facts["model_type"] = str(config.model_type)
    dtype = raw.get("torch_dtype") or raw.get("dtype") or _as_dict(raw.get("text_config")).get("torch_dtype")
    report.facts["dtype"] = str(dtype or "float32")
    return config


def _check_tokenizer(path: Path, report: PreflightReport) -> None:
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    except Exception as exc:  # noqa: BLE001 - any failure here is the submission's tokenizer
        report.refuse("tokenizer", f"the tokenizer does not load without remote code: {_first_line(exc)}")
        return
    template = getattr(tokenizer, "chat_template", None) or any(
        (path / name).is_file() for name in ("chat_template.jinja", "chat_template.json")
    )
    report.facts["has_chat_template"] = bool(template)
    if not template:
        report.refuse(
            "chat_template",
            "the tokenizer has no chat template, so chat messages cannot be turned "
            "into a prompt; add one (tokenizer_config.json 'chat_template' or "
            "chat_template.jinja)",
        )


def safetensors_header(file: Path) -> dict[str, Any]:
    """The JSON header of a .safetensors file (8-byte little-endian length, then JSON): no tensors read.
    Raises ValueError when it is not one."""
    with open(file, "rb") as handle:
        prefix = handle.read(8)
        if len(prefix) < 8:
            raise ValueError(f"it is {len(prefix)} bytes long, shorter than a safetensors header")
        (length,) = struct.unpack("<Q", prefix)
        if length > 100_000_000:
            raise ValueError(f"its header length {length} is not plausible")
        header = json.loads(handle.read(length))
    if not isinstance(header, dict):
        raise ValueError(f"its header is a JSON {_json_kind(header)}, not an object of tensors")
    return header


def _tensor_size(name: str, tensor: Any) -> tuple[int, int]:
    """(parameters, bytes) of one header entry; ValueError when the entry is malformed."""
    if not isinstance(tensor, dict):
        raise ValueError(f"tensor {name!r} is a JSON {_json_kind(tensor)}, not an object")
    shape = tensor.get("shape", [1])
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise ValueError(f"tensor {name!r} has shape {shape!r}; a shape is a list of non-negative integers")
    count = math.prod(shape)
    offsets = tensor.get("data_offsets", [0, count * DTYPE_BYTES.get(str(tensor.get("dtype", "F32")), 4)])
    if not (
        isinstance(offsets, list)
        and len(offsets) == 2
        and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
        and 0 <= offsets[0] <= offsets[1]
    ):
        raise ValueError(f"tensor {name!r} has data_offsets {offsets!r}; they are [start, end] with 0 <= start <= end")
    return count, offsets[1] - offsets[0]


def _count_parameters(path: Path, raw: dict[str, Any], config: Any, report: PreflightReport) -> None:
    files = sorted(path.glob("*.safetensors"))
    if not files:
        if list(path.glob("*.bin")) or list(path.glob("*.pt")):
            report.refuse(
                "weights",
                "only PyTorch pickle weights (.bin/.pt) were found; loading them can run "
                "arbitrary code, so safetensors weights are required",
            )
        else:
            report.refuse("weights", "no weights (*.safetensors) in the model directory")
        estimate = _parameters_from_config(config) if config is not None else None
        if estimate:
            report.facts.update(parameters=estimate, parameters_source="config")
        return
    parameters = 0
    weight_bytes = 0
    for file in files:
        try:
            header = safetensors_header(file)
            for name, tensor in header.items():
                if name != "__metadata__":
                    count, size = _tensor_size(name, tensor)
                    parameters += count
                    weight_bytes += size
        except (ValueError, OSError, struct.error) as exc:
            report.refuse("weights", f"{file.name} is not a valid safetensors file: {exc}")
            return
    report.facts.update(parameters=parameters, parameters_source="safetensors", weights_bytes=weight_bytes)


def _parameters_from_config(config: Any) -> int | None:
    """A rough decoder-only estimate: embeddings plus attention and MLP per layer."""
    text = getattr(config, "text_config", None) or config

    def positive(name: str) -> int | None:
        value = getattr(text, name, None)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

    hidden, layers, vocab = positive("hidden_size"), positive("num_hidden_layers"), positive("vocab_size")
    if not (hidden and layers and vocab):
        return None
    intermediate = positive("intermediate_size") or 4 * hidden
    embeddings = vocab * hidden * (1 if getattr(text, "tie_word_embeddings", False) else 2)
    return int(embeddings + layers * (4 * hidden * hidden + 3 * hidden * intermediate))


def model_modalities(raw_config: dict[str, Any]) -> list[str]:
    """What inputs a model takes, from its config: text, plus image and video where it has a vision part."""
    keys = set(raw_config) | set(_as_dict(raw_config.get("text_config")))
    model_type = str(raw_config.get("model_type", ""))
    found = ["text"]
    if keys & set(_VISION_KEYS) or "vl" in model_type or "llava" in model_type or "vision" in model_type:
        found.append("image")
    if keys & set(_VIDEO_KEYS) or "video" in model_type:
        found.append("video")
    return found


def _check_modality(raw: dict[str, Any], report: PreflightReport, required: Iterable[str]) -> None:
    modalities = model_modalities(raw)
    report.facts["modality"] = modalities
    needed = [m for m in MODALITIES if m in set(required)]
    missing = [m for m in needed if m not in modalities]
    if missing:
        report.refuse(
            "modality",
            f"the benchmarks asked for need {', '.join(missing)} input, but the model's config "
            f"has no {'vision' if 'image' in missing else 'video'} part (it takes "
            f"{', '.join(modalities)})",
        )


def _estimate_memory(report: PreflightReport, gpu_memory_gb: float | None) -> None:
    weight_bytes = report.facts.get("weights_bytes")
    if weight_bytes is None and report.facts.get("parameters"):
        weight_bytes = report.facts["parameters"] * DTYPE_BYTES.get(str(report.facts.get("dtype")), 2)
    if weight_bytes is None:
        return
    estimate = weight_bytes / 1024**3 * MEMORY_OVERHEAD_FACTOR + MEMORY_OVERHEAD_GB
    report.facts["estimated_gpu_memory_gb"] = round(estimate, 2)
    report.facts["memory_estimate"] = (
        f"weights x {MEMORY_OVERHEAD_FACTOR} + {MEMORY_OVERHEAD_GB} GiB "
        "(CUDA context, activations; the KV cache takes what is left)"
    )
    if gpu_memory_gb is not None and estimate > gpu_memory_gb:
        report.refuse(
            "parameters",
            f"the model needs about {estimate:.1f} GiB of GPU memory "
            f"({report.facts.get('parameters', 0):,} parameters) and the workers have "
            f"{gpu_memory_gb:g} GiB",
        )


# --- hub repos (offline) ------------------------------------------------------------------------


def preflight_hf(
    repo: str,
    revision: str,
    *,
    required_modalities: Iterable[str] = ("text",),
    gpu_memory_gb: float | None = None,
    cache_dir: str | None = None,
) -> PreflightReport:
    """Pre-flight a hub repo at ``revision`` from the local Hugging Face cache (nothing is downloaded)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

    try:
        local = snapshot_download(repo, revision=revision, cache_dir=cache_dir, local_files_only=True)
    except HFValidationError as exc:
        report = PreflightReport()
        report.refuse("repo", f"{repo!r} is not a valid hub repo name: {exc}")
        return report
    except (LocalEntryNotFoundError, FileNotFoundError, OSError):
        report = PreflightReport()
        report.refuse(
            "revision",
            f"{repo}@{revision} is not found in this machine's local Hugging Face cache "
            "(pre-flight runs offline); the worker machines fetch it from the hub before the "
            "run, so check that the repo name and the revision are exact and that the repo "
            "is public or shared with the workers' token",
        )
        return report
    report = preflight_weights(local, required_modalities=required_modalities, gpu_memory_gb=gpu_memory_gb)
    report.facts.update(repo=repo, revision=revision, commit=Path(local).name)
    return report


# --- endpoints ----------------------------------------------------------------------------------


def preflight_endpoint(endpoint: Endpoint, *, timeout_s: float = 30.0) -> PreflightReport:
    """Check an OpenAI-compatible endpoint: the key is accepted, the model exists, a chat answers."""
    from evaluators.llm.client import ChatClient

    report = PreflightReport()
    headers = dict(endpoint.headers)
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    try:
        response = httpx.get(endpoint.base_url.rstrip("/") + "/models", headers=headers, timeout=timeout_s)
    except httpx.HTTPError as exc:
        report.refuse(
            "base_url", f"{endpoint.shown_url} is not reachable: {type(exc).__name__}: {redact_userinfo(str(exc))}"
        )
        return report
    if response.status_code in (401, 403):
        report.refuse(
            "api_key",
            f"{endpoint.shown_url} refused the API key (HTTP {response.status_code}); "
            "check the key and that it may use this model",
        )
        return report
    if response.status_code == 200:
        try:
            listed = [str(m.get("id")) for m in response.json().get("data", [])]
        except (ValueError, AttributeError, TypeError):
            listed = []
        report.facts["models_listed"] = listed[:50]
        if listed and endpoint.model not in listed:
            report.refuse(
                "model",
                f"model {endpoint.model!r} is not among the models {endpoint.shown_url} lists: "
                f"{', '.join(listed[:10])}{' ...' if len(listed) > 10 else ''}",
            )
            return report
    started = time.monotonic()
    with ChatClient(endpoint, max_concurrency=1, timeout_s=timeout_s, max_retries=1, backoff_s=0.5) as client:
        try:
            result = client.chat([{"role": "user", "content": "Reply with OK."}], max_tokens=1)
        except ModelError as exc:
            field_name = {401: "api_key", 403: "api_key", 404: "model"}.get(exc.status or 0, "base_url")
            report.refuse(field_name, str(exc))
            return report
    report.facts.update(chat_latency_s=round(time.monotonic() - started, 3), served_model=result.model)
    return report
