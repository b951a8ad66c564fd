"""A person's path in Debian's Chromium driven by Playwright: sign up, upload a predictions file,
watch the run's live progress, and find the score on the leaderboard."""

from __future__ import annotations

import re

import pytest

from tests.conftest import PY_SLOW_SUM, predictions_jsonl

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.toolchains]


def test_sign_up_submit_watch_progress_and_see_the_score(multi_lcb, live_server, celery_worker, page, tmp_path):
    item_ids = multi_lcb.dataset_versions.get(is_current=True).item_ids
    preds = tmp_path / "preds.jsonl"
    preds.write_bytes(predictions_jsonl(item_ids, lambda lang: PY_SLOW_SUM if lang == "python" else None))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item_id": "t1_a/python"}\n')

    page.goto(live_server.url + "/")
    assert "Multi-LCB" in page.content() and "Video NIAH (single hop)" in page.content()
    page.get_by_role("link", name="Sign up").click()
    page.fill("#id_username", "grace")
    page.fill("#id_password1", "Compilers-Are-Fun-1952")
    page.fill("#id_password2", "Compilers-Are-Fun-1952")
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/submit/")

    page.fill("#id_model_name", "browser-coder")
    page.set_input_files("#id_predictions", str(bad))
    page.get_by_role("button", name="Validate and submit").click()
    problems = page.locator(".problems").inner_text()
    assert "line 1, field output: missing or not a string" in problems

    page.fill("#id_model_name", "browser-coder")
    page.set_input_files("#id_predictions", str(preds))
    page.get_by_role("button", name="Validate and submit").click()
    page.wait_for_url("**/submissions/*/")
    page.wait_for_selector("progress")
    page.wait_for_selector(".badge.succeeded", timeout=180_000)  # the htmx fragment polls until done
    page.screenshot(path=str(tmp_path / "submission.png"), full_page=True)
    page.get_by_role("link", name="See it on the leaderboard").click()
    table = page.locator("table.board").first.inner_text()  # the ranked rows (the reported figures follow)
    assert "browser-coder" in table and "8.3" in table  # pass@1 = 1/12 = 8.3 %
    assert re.search(r"\n\d+–\d+\n", table)  # the interval is shown (widened to whole points on this wide board)
