"""Tests of ``python -m evaluators`` (score, items, list): exit codes, the metrics table, the JSON
written with --out, and clear messages with exit status 2 for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluators.multi_lcb.evaluator import MultiLCBEvaluator

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "evaluators" / "multi_lcb" / "data" / "solutions"


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "evaluators", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def release(tmp_path: Path) -> Path:
    lines = MultiLCBEvaluator().presentation().sample_dataset().read_text(encoding="utf-8").splitlines()
    wanted = [line for line in lines if json.loads(line)["question_id"] in ("abc900_a", "1901A")]
    assert len(wanted) == 2
    path = tmp_path / "release.jsonl"
    path.write_text("\n".join(wanted) + "\n", encoding="utf-8")
    return path


def fenced(code: str) -> str:
    return f"Solution:\n```python\n{code}\n```\n"


def test_list() -> None:
    result = cli("list")
    assert result.returncode == 0, result.stderr
    assert "multi-lcb" in result.stdout and "Multi-LCB" in result.stdout


def test_items_subcommand(release: Path, tmp_path: Path) -> None:
    out = tmp_path / "items.jsonl"
    result = cli("items", "--benchmark", "multi-lcb", "--release", str(release), "--out", str(out))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    # each problem's statement and tests once, then its twelve language items referring to them
    assert [r.get("shared") for r in records if "id" not in r] == ["abc900_a", "1901A"]
    assert len(records) == 2 + 24 and records[1]["id"] == "abc900_a/python" and records[1]["shared"] == "abc900_a"
    assert isinstance(records[0]["payload"]["private_test_cases"], list)
    assert records[1]["payload"] == {"language": "python"}
    assert "wrote 24 item(s)" in result.stdout


@pytest.mark.toolchains
def test_score_small_predictions_file(release: Path, tmp_path: Path) -> None:
    good_sum = (SOLUTIONS / "abc900_a" / "python.py").read_text()
    good_max = "n = int(input())\nprint(max(map(int, input().split())))\n"
    predictions = tmp_path / "predictions.jsonl"
    rows = [
        {"item_id": "abc900_a/python", "output": fenced(good_sum), "sample_index": 0},
        {"item_id": "abc900_a/python", "output": fenced("print(0)"), "sample_index": 1},
        {"item_id": "1901A/python", "output": fenced(good_max), "sample_index": 0},
        {"item_id": "1901A/python", "output": "no code here", "sample_index": 1},
    ]
    predictions.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    # the normalized items file must work exactly like the release
    items = tmp_path / "items.jsonl"
    assert (
        cli(
            "items",
            "--benchmark",
            "multi-lcb",
            "--release",
            str(release),
            "--out",
            str(items),
            "--setting",
            "languages=python",
        ).returncode
        == 0
    )
    out = tmp_path / "results.json"
    for dataset in (release, items):
        result = cli(
            "score",
            "--benchmark",
            "multi-lcb",
            "--dataset",
            str(dataset),
            "--predictions",
            str(predictions),
            "--concurrency",
            "2",
            "--setting",
            "languages=python",
            "--setting",
            "time_limit_seconds=5",
            "--out",
            str(out),
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "pass@1" in result.stdout and "python_gap" not in result.stdout  # one language: no gap
        data = json.loads(out.read_text())
        headline = [m for m in data["metrics"] if m["key"] == "pass@1" and not m["slice"]]
        assert headline[0]["value"] == pytest.approx(0.5)
        shares = {m["slice"]["verdict"]: m["value"] for m in data["metrics"] if m["key"] == "verdict_share"}
        assert shares["passed"] == 0.5 and shares["wrong_answer"] == 0.25 and shares["no_code"] == 0.25
        assert {s["item_id"] for s in data["item_scores"]} == {"abc900_a/python", "1901A/python"}
        assert data["environment"]["toolchain.python"].startswith("Python")
        assert data["environment"]["time_limit_seconds"] == "5"


def test_bad_predictions_file_names_the_line(release: Path, tmp_path: Path) -> None:
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(
        json.dumps({"item_id": "abc900_a/python", "output": "x"})
        + "\n"
        + "{broken\n"
        + json.dumps({"item_id": "nope/python", "output": "x"})
        + "\n",
        encoding="utf-8",
    )
    result = cli(
        "score",
        "--benchmark",
        "multi-lcb",
        "--dataset",
        str(release),
        "--predictions",
        str(predictions),
        "--setting",
        "languages=python",
    )
    assert result.returncode == 2
    assert "line 2" in result.stderr and "not valid JSON" in result.stderr
    assert "line 3" in result.stderr and "unknown item id 'nope/python'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["--benchmark", "no-such"], "no evaluator is registered"),
        (["--setting", "extraction=middle"], "setting 'extraction'"),
        (["--setting", "bogus=1"], "unknown setting 'bogus'"),
        (["--setting", "novalue"], "expected key=value"),
    ],
)
def test_bad_arguments_exit_2(release: Path, tmp_path: Path, args: list[str], message: str) -> None:
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("", encoding="utf-8")
    base = {"--benchmark": "multi-lcb"}
    if "--benchmark" in args:
        base = {}
    flat = [x for kv in base.items() for x in kv]
    result = cli("score", *flat, *args, "--dataset", str(release), "--predictions", str(predictions))
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_bad_dataset_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps({"question_id": "x1", "platform": "mars"}) + "\n", encoding="utf-8")
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"item_id": "x1/python", "output": "x"}) + "\n", encoding="utf-8")
    result = cli("score", "--benchmark", "multi-lcb", "--dataset", str(broken), "--predictions", str(predictions))
    assert result.returncode == 2 and "line 1" in result.stderr and "x1" in result.stderr
    assert "Traceback" not in result.stderr
    missing = cli(
        "score",
        "--benchmark",
        "multi-lcb",
        "--dataset",
        str(tmp_path / "none.jsonl"),
        "--predictions",
        str(predictions),
    )
    assert missing.returncode == 2 and "cannot be read" in missing.stderr
    empty_preds = cli(
        "score",
        "--benchmark",
        "multi-lcb",
        "--dataset",
        str(MultiLCBEvaluator().presentation().sample_dataset()),
        "--predictions",
        str(tmp_path / "absent.jsonl"),
    )
    assert empty_preds.returncode == 2 and "absent.jsonl" in empty_preds.stderr
