"""Judge validation end to end: a fixture release imported as PoliCon's dataset version, a scripted judge
over HTTP (configured through LEADERBOARD_JUDGES) whose digits against the parties' real votes are
chosen so that the figures are known by hand, ``manage.py validate_judge policon`` and the worker task
storing them on the version, and the board showing the configured judge's figure with its date beside
the paper's 0.83."""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from tests.policon.quirks import VALIDATION_PAIRS, write_release
from tests.support.openai_server import OpenAIServer, Reply

#: (task marker in the real resolution, party) -> the scripted judge's digit; the real votes, in the
#: order the validation asks (tasks 0, 1 and 3 of the 2-party file; task 2 has no resolution and EPP in
#: task 1 no stance): 1, 2, 3, 4, 9 -> judge 2, 1, 4, 3, 9 (quirks.VALIDATION_PAIRS)
DIGITS = {
    ("[t0]", "Alder Bloc"): "2",
    ("[t0]", "Birch Union"): "1",
    ("[t1]", "Birch Union"): "4",
    ("[t3]", "Alder Bloc"): "3",
    ("[t3]", "Birch Union"): "9",
}
# By hand: real x = 1,2,3,4,9 and judge y = 2,1,4,3,9, both of mean 3.8; the deviations' products sum to
# 5.04 + 5.04 - 0.16 - 0.16 + 27.04 = 36.8 and each sum of squares is 38.8, so r = 36.8 / 38.8 = 92/97.
# Bands (0-3 / 4-6 / 7-9): x 0,0,0,1,2 and y 0,0,1,0,2 agree on 3 of 5.
EXPECTED_R, EXPECTED_BANDS = 92 / 97, 3 / 5
JUDGE = {"name": "scripted-judge", "revision": "2026-12-01", "prompt_version": "v1", "model": "judge"}
#: stored under the prompt actually asked (PoliCon's released v2), whatever the setting's prompt_version says
LABEL = "scripted-judge@2026-12-01 (prompt policon-support@v2)"


def scripted(request: dict[str, Any]) -> Reply:
    text = request["messages"][-1]["content"]
    party = re.search(r"\nParty: (.*)\n", text).group(1)
    marker = re.search(r"\[t\d\]", text).group(0)
    return Reply(text=DIGITS[(marker, party)], usage=(200, 1))


@pytest.fixture
def judge_server() -> Iterator[OpenAIServer]:
    with OpenAIServer(scripted) as server:
        yield server


@pytest.fixture
def policon(db, tmp_path: Path, settings, judge_server: OpenAIServer):
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    settings.JUDGES = {"policon": {**JUDGE, "base_url": judge_server.base_url}}
    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug="policon")
    dataset_version_import(benchmark=benchmark, release_path=write_release(tmp_path, party_counts=(2,)), tag="quirks")
    return benchmark


def test_the_pairs_of_the_fixture_are_the_ones_scripted():
    assert [int(d) for d in DIGITS.values()] == [judge for _, judge in VALIDATION_PAIRS]


def test_validate_judge_reports_stores_and_shows_the_configured_judges_agreement(policon, judge_server, client):
    out = io.StringIO()
    call_command("validate_judge", "policon", stdout=out)
    assert judge_server.request_count == 5  # one call per party with a stance, of each task with a resolution
    assert (
        f"{LABEL}: asked about the real adopted resolutions, against each party's real vote (in tenths): Pearson r = "
        f"{EXPECTED_R:.2f}, exact-band agreement (0-3 / 4-6 / 7-9) 60%, over 5 votes on 4 tasks" in out.getvalue()
    )
    assert "1 without a resolution, 1 parties without a stance skipped" in out.getvalue()
    assert "it passes the rule of r at least 0.7" in out.getvalue()  # 0.948 >= 0.7
    version = policon.dataset_versions.get(is_current=True)
    stored = version.judge_validations[LABEL]
    assert stored["pearson_r"] == pytest.approx(EXPECTED_R) and stored["band_agreement"] == pytest.approx(
        EXPECTED_BANDS
    )
    assert (stored["pairs"], stored["tasks"], stored["fallbacks"], stored["prompt"]) == (5, 4, 0, "policon-support@v2")
    assert stored["passed"] is True and "prompt v1" not in str(version.judge_validations)
    page = client.get("/benchmarks/policon/").content.decode()
    assert f"The configured judge {LABEL}" in page and f"Pearson r = {EXPECTED_R:.2f}" in page
    assert "exact-band agreement (0-3 / 4-6 / 7-9) 60%" in page and "The paper reports r = 0.83" in page
    assert stored["at"][:10] in page


def test_the_worker_task_validates_a_spread_sample_and_the_command_can_queue_it(
    policon, judge_server, sent_tasks, django_capture_on_commit_callbacks
):
    from leaderboard import task_sends
    from leaderboard.modelhost.validation import judge_validation_run
    from workers.tasks import validate_judge

    # every second task of 4: tasks 0 (votes 1, 2 -> judge 2, 1: r = -1, both bands 0-3) and 2 (no resolution)
    result = validate_judge(policon.pk, 2)
    assert (result["pairs"], result["tasks"], result["skipped_tasks"], result["limit"]) == (2, 2, 1, 2)
    assert result["pearson_r"] == pytest.approx(-1.0) and result["band_agreement"] == 1.0
    with django_capture_on_commit_callbacks(execute=True):
        call_command("validate_judge", "policon", "--queue", "--limit", "3", stdout=io.StringIO())
    assert [(m.task, m.args, m.queue) for m in sent_tasks] == [
        (task_sends.VALIDATE_JUDGE, (policon.pk, 3), task_sends.CPU)
    ]
    later = judge_validation_run(benchmark_id=policon.pk, now=dt.datetime(2027, 1, 2, tzinfo=dt.UTC))
    assert later["at"].startswith("2027-01-02")  # the stored figure is replaced, with its date


def test_a_judge_not_validated_yet_is_named_and_other_judges_figures_are_not_shown(policon, settings, client):
    from leaderboard.modelhost.validation import judge_validation_run

    judge_validation_run(benchmark_id=policon.pk)
    settings.JUDGES = {"policon": {**JUDGE, "revision": "2027-01-01", "base_url": "http://127.0.0.1:9/v1"}}
    from leaderboard import pagecache

    pagecache.boards_changed()
    page = client.get("/benchmarks/policon/").content.decode()
    assert "scripted-judge@2027-01-01 (prompt policon-support@v2) has not been validated on dataset quirks yet" in page
    assert "Pearson r =" not in page
