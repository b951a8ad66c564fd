"""What `make run` installs behind the site, on every page: the phases recorded by scripts/run-embedded
(``python -m leaderboard.setup_status``) are shown while they are not ready, with what waits for them, and
gone once they are; a cached page never shows a state that has changed since."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from leaderboard.setup_status import record, setup_notice
from tests.conftest import REPO


def test_the_script_records_phases_and_refuses_unknown_ones(tmp_path: Path):
    path = tmp_path / "setup-status.json"
    for phase, state in (("judge", "installing"), ("toolchains", "ready")):
        subprocess.run([sys.executable, "-m", "leaderboard.setup_status", str(path), phase, state], cwd=REPO, check=True)
    assert [(p.key, p.state) for p in setup_notice(path)] == [("judge", "installing")]
    bad = subprocess.run([sys.executable, "-m", "leaderboard.setup_status", str(path), "judge", "done"], cwd=REPO,
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "state: unknown 'done'" in bad.stderr
    record(path, "judge", "installing", now=1000.0)
    assert round(setup_notice(path, now=1000.0 + 150)[0].minutes, 1) == 2.5
    assert setup_notice(tmp_path / "absent.json") == []  # a deployment records nothing and shows nothing


@pytest.mark.django_db
def test_every_page_says_what_is_still_installing_until_it_is_ready(client, settings, tmp_path: Path):
    from leaderboard.catalog.services import benchmarks_sync

    benchmarks_sync()
    settings.VAR_DIR = tmp_path
    path = tmp_path / "setup-status.json"
    assert "Still setting up" not in client.get("/").content.decode()
    record(path, "judge", "installing")
    record(path, "toolchains", "ready")
    for url in ("/", "/benchmarks/policon/", "/queue/"):
        page = client.get(url).content.decode()
        assert "Still setting up" in page and "The demo judge" in page and "PoliCon" in page, url
        assert "The sandbox&#x27;s toolchains" not in page and "The sandbox's toolchains" not in page  # ready: not listed
    record(path, "judge", "ready")
    assert "Still setting up" not in client.get("/").content.decode()  # the cached home page is not served again
