"""A checkout in a directory only its owner may enter (``mktemp -d``, ``/root``) still scores code.

Sandboxed programs run as an unprivileged uid, which cannot pass through such a directory; the
sandbox must reach its toolchains and program files anyway, without loosening the directory.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from evaluators.multi_lcb.examples import reference_solution
from evaluators.sandbox import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "abc900_a"


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout


def _clone_with_working_tree(dest: Path) -> None:
    """``git clone`` of this repository, plus the working tree's uncommitted changes and new files,
    so the code under test is the code in front of the developer (in CI the two are the same)."""
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)], check=True)
    changed = _git("ls-files", "--modified", "--others", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, changed):
        src, dst = ROOT / rel, dest / rel
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    for rel in filter(None, _git("ls-files", "--deleted", "-z").split("\0")):
        (dest / rel).unlink(missing_ok=True)


@pytest.fixture
def private_clone() -> Iterator[Path]:
    # under var/ (ignored by git) so that the toolchains can be hard-linked: same filesystem, no copy
    var = ROOT / "var"
    var.mkdir(exist_ok=True)
    private = Path(tempfile.mkdtemp(prefix="private-clone-", dir=var))
    try:
        assert stat.S_IMODE(private.stat().st_mode) == 0o700  # what mktemp -d gives
        clone = private / "leaderboard"
        _clone_with_working_tree(clone)
        toolchains = ROOT / ".toolchains"
        assert toolchains.is_dir(), "run scripts/install-toolchains (make test does)"
        subprocess.run(["cp", "-al", str(toolchains), str(clone / ".toolchains")], check=True)
        yield clone
    finally:
        shutil.rmtree(private, ignore_errors=True)


@pytest.mark.toolchains
def test_a_checkout_in_a_private_directory_scores_a_program_in_every_language(
    private_clone: Path, tmp_path: Path
) -> None:
    lines = MultiLCBEvaluator().presentation().sample_dataset().read_text(encoding="utf-8").splitlines()
    release = tmp_path / "release.jsonl"
    release.write_text("".join(line + "\n" for line in lines if json.loads(line)["question_id"] == QUESTION))
    predictions = tmp_path / "predictions.jsonl"
    rows = []
    for language in sorted(LANGUAGES):
        code = reference_solution(QUESTION, language)
        assert code, f"no reference solution of {QUESTION} in {language}"
        rows.append({"item_id": f"{QUESTION}/{language}", "sample_index": 0, "output": f"```{language}\n{code}\n```\n"})
    predictions.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "results.json"
    env = {**os.environ, "PYTHONPATH": str(private_clone)}
    probe = subprocess.run(
        [sys.executable, "-c", "import evaluators; print(evaluators.__file__)"],
        cwd=private_clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.startswith(str(private_clone)), probe.stdout  # the clone's code, not ours
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluators",
            "score",
            "--benchmark",
            "multi-lcb",
            "--dataset",
            str(release),
            "--predictions",
            str(predictions),
            "--setting",
            "time_limit_seconds=10",
            "--out",
            str(out),
        ],
        cwd=private_clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(out.read_text())
    per_language = {
        m["slice"]["language"]: m["value"]
        for m in data["metrics"]
        if m["key"] == "pass@1" and set(m["slice"]) == {"language"}
    }
    assert per_language == dict.fromkeys(LANGUAGES, 1.0), result.stdout
