"""Tests that matter on both databases run again on the embedded default (SQLite, files under a fresh
``var/``, no Redis or S3): the suite itself runs on PostgreSQL, where a JSON lookup that SQLite reads
differently (a date window compared as JSON: every windowed page, download and API answer was a 500)
would pass unnoticed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

ON_BOTH = [
    "tests/web/test_pages.py::test_date_window_recomputes_scores_and_flags_contaminated_models",
    "tests/api/test_api_fuzz.py",  # fewer examples per operation than on PostgreSQL (FUZZ_EXAMPLES below)
    "tests/api/test_schema_strict.py",
    "tests/submissions/test_visibility.py",
]


#: the fuzz's inputs per operation and mode here: enough to send dates, pages and bodies through SQLite
FUZZ_EXAMPLES = "5"


def test_the_database_sensitive_tests_pass_on_the_embedded_default(tmp_path: Path, capsys) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "LEADERBOARD_CACHE_URL"} and not k.startswith(("S3_", "AWS_"))
    }
    env["LEADERBOARD_VAR_DIR"] = str(
        tmp_path / "var"
    )  # a fresh cache: no windowed values from another database's run ids
    env["LEADERBOARD_FUZZ_EXAMPLES"] = FUZZ_EXAMPLES
    vendor = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.db import connection; print(connection.vendor)",
        ],
        cwd=REPO,
        env={**env, "DJANGO_SETTINGS_MODULE": "leaderboard.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert vendor.stdout.strip() == "sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *ON_BOTH, "-q", "-p", "no:cacheprovider"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=580,
    )
    with capsys.disabled():  # the fuzz's counts on SQLite appear in make test's output, passing or not
        print(
            "\n[SQLite] "
            + "\n[SQLite] ".join(line for line in done.stdout.splitlines() if line.startswith("Schemathesis"))
        )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]
