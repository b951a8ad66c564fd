"""Worker start-up rules."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_gpu_worker_refuses_to_run_more_than_one_task_at_a_time():
    result = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "workers.celery", "worker", "-Q", "gpu-a100", "--concurrency", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "refusing to start: GPU queue(s) gpu-a100 need one task at a time" in result.stdout + result.stderr
