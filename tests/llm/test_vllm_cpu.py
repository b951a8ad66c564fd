"""Real vLLM (its CPU build, installed by scripts/install-vllm-cpu into .venv-vllm-cpu) serving the tiny
model through the same launcher a GPU worker uses: start, chat, guided choice for a judge, and a server
killed mid-life classified as such (one server for the module)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from evaluators.llm.client import ChatClient
from evaluators.llm.server import ModelServer, visible_gpu_count
from evaluators.llm.server_command import VLLM_SERVER_MODULE, ServerSpec, server_version
from evaluators.llm.types import ModelError
from tests.conftest import vllm_cpu_python

pytestmark = [
    pytest.mark.vllm,
    pytest.mark.skipif(
        visible_gpu_count() > 0,
        reason="a GPU is visible: the launcher gives vLLM its GPU options, "
        "which scripts/gpu-check covers, not the CPU path tested here",
    ),
]
HI = [{"role": "user", "content": "Hello!"}]


def _spec(model: Path, logs: Path) -> ServerSpec:
    return ServerSpec(
        kind="vllm",
        model=str(model),
        python=str(vllm_cpu_python()),
        max_model_len=512,
        start_timeout_s=300,
        cpu_kv_cache_bytes="64M",
        log_path=str(logs / "vllm.log"),
        env={"VLLM_CACHE_ROOT": str(logs / "vllm-cache")},
    )


@pytest.fixture(scope="module")
def vllm_server(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    with ModelServer(_spec(tiny_model_dir, tmp_path_factory.mktemp("vllm"))) as server:
        yield server


def test_the_cpu_command_is_the_module_with_a_kv_cache_and_no_gpu_options(vllm_server: ModelServer) -> None:
    command = vllm_server.command
    assert command[:3] == [str(vllm_cpu_python()), "-m", VLLM_SERVER_MODULE]
    assert "--kv-cache-memory-bytes" in command and "--enforce-eager" in command
    assert "--tensor-parallel-size" not in command and "--gpu-memory-utilization" not in command
    assert server_version(vllm_server.spec) == "vllm-cpu 0.32.0"  # what a run records as its server


def test_vllm_answers_chat_and_streams(vllm_server: ModelServer) -> None:
    client = ChatClient(vllm_server.endpoint(), timeout_s=120)
    result = client.chat(HI, max_tokens=8)
    assert result.finish_reason in ("stop", "length") and result.usage.completion_tokens >= 1
    pieces: list[str] = []
    streamed = client.chat(HI, max_tokens=8, on_delta=pieces.append)
    assert "".join(pieces) == streamed.text


def test_guided_choice_for_a_judge_is_honoured_by_the_server(vllm_server: ModelServer) -> None:
    client = ChatClient(vllm_server.endpoint(), timeout_s=120)
    for seed in range(3):
        result = client.chat(
            [{"role": "user", "content": "Is the answer correct? yes or no"}],
            max_tokens=4,
            choices=("yes", "no"),
            seed=seed,
            temperature=1.0,
        )
        assert result.text.strip() in ("yes", "no") and result.constrained == "server", result


def test_a_killed_server_is_reported_as_such(vllm_server: ModelServer) -> None:
    """Last in this module: it kills the module's server. A restart after a kill, through the worker,
    is test_server_faults' vLLM case."""
    assert vllm_server.pid is not None
    os.killpg(vllm_server.pid, signal.SIGKILL)  # the whole group: vLLM's engine process would be orphaned otherwise
    deadline = time.monotonic() + 60
    while vllm_server.running and time.monotonic() < deadline:
        time.sleep(0.1)
    failure = vllm_server.failure()
    assert isinstance(failure, ModelError) and failure.kind == "endpoint", failure
