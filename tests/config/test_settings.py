"""JSON settings are checked when the site or a worker starts, and the error names the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("LEADERBOARD_JUDGES", '{"j": ', "LEADERBOARD_JUDGES is not valid JSON (Expecting value at line 1, column 7)"),
        (
            "LEADERBOARD_EVALUATOR_SETTINGS",
            "[1]",
            "LEADERBOARD_EVALUATOR_SETTINGS must be a JSON object ({...}), not list",
        ),
        ("LEADERBOARD_EXTRA_EVALUATORS", '"x"', "LEADERBOARD_EXTRA_EVALUATORS must be a JSON object ({...}), not str"),
        ("LEADERBOARD_ARENA_MODELS", "{}", "LEADERBOARD_ARENA_MODELS must be a JSON array ([...]), not dict"),
    ],
)
def test_a_malformed_json_setting_stops_start_up_naming_it(
    variable: str, value: str, message: str, tmp_path: Path
) -> None:
    env = {**os.environ, variable: value, "LEADERBOARD_VAR_DIR": str(tmp_path)}
    started = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert started.returncode != 0
    assert message in started.stderr
