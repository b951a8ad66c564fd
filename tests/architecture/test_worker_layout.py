"""Every queue the site sends to is consumed where the site runs: by a worker started in
scripts/serve (``make serve``, the deployment) and in scripts/run-embedded (``make run``), and by the
tests' default worker; and no worker that takes long evaluation runs (``cpu``, ``baseline``) takes
another of them or the interactive work, so a person's run never waits behind a baseline and a vote's
ratings or a pre-flight never wait behind a run. Read from the scripts' own command lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import WORKER_QUEUES
from workers import routing

ROOT = Path(__file__).resolve().parents[2]
#: a celery worker's queue list (``.venv/bin/celery`` or ``$CELERY``):
#: ``-Q cpu`` or ``-Q "gpu-${LEADERBOARD_GPU_KIND:-local}"``
QUEUE_FLAG = re.compile(r"(?:/celery|\$CELERY) -A workers\.celery worker\b[^\n]*?-Q \"?([^\s\"]+)\"?")


def worker_queue_lists(script: str) -> list[set[str]]:
    text = (ROOT / "scripts" / script).read_text(encoding="utf-8").replace("\\\n", " ")
    return [set(match.split(",")) for match in QUEUE_FLAG.findall(text)]


def test_the_pattern_reads_the_scripts_worker_lines():
    # the arena worker's line in both scripts, as written there
    assert {"arena"} <= set().union(*worker_queue_lists("serve")) and len(worker_queue_lists("serve")) == 5
    assert len(worker_queue_lists("run-embedded")) == 4


@pytest.mark.parametrize("script", ["serve", "run-embedded"])
def test_every_queue_has_a_worker_and_long_runs_share_none(script):
    workers = worker_queue_lists(script)
    consumed = set().union(*workers)
    for queue in (
        routing.CPU,
        routing.BASELINE,
        routing.INTERACTIVE,
        routing.ARENA,
        "gpu-${LEADERBOARD_GPU_KIND:-local}",
    ):
        assert queue in consumed, f"{script} starts no worker on '{queue}'"
    for queues in workers:
        long_ones = queues & set(routing.LONG_QUEUES)
        assert len(long_ones) <= 1, (
            f"{script}: one worker takes {sorted(long_ones)}: a person's run could wait behind a baseline"
        )
        assert not (long_ones and routing.INTERACTIVE in queues), (
            f"{script}: interactive work shares a worker with {sorted(long_ones)}"
        )


def test_the_tests_worker_takes_every_queue_but_the_arenas_and_the_gpus():
    assert set(WORKER_QUEUES.split(",")) == {routing.CPU, routing.BASELINE, routing.INTERACTIVE}
