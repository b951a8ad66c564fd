"""A hidden (private) Multi-LCB test stays hidden from the submitter, end to end: a program that copies its
input to stderr and fails on the hidden test (after passing the public one) is scored by a real worker in
the sandbox, and the input it copied appears in no page and no API response of the run; a program that
fails the public test the same way still shows its stderr there (public tests keep their detail).

The mini release's problems are "print a+b" with the public test "1 2" and the hidden test "-5 5"
(tests/conftest.py); the programs write the input with its spaces turned into underscores after a marker
(which their source, shown on the per-item page, spells in two pieces), so that the marker alone finds it
in any page, escaped or not."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.catalog.models import Benchmark
from leaderboard.runs.models import EvaluationRun, RunStatus
from tests.conftest import PY_SUM, wait_for
from tests.submissions.test_pipeline import api_for, finished, submit

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]

#: passes the public test ("1 2"), then copies the hidden test's input to stderr and fails
LEAKER = (
    "import sys\ndata = sys.stdin.read()\nsys.stderr.write('HIDDEN' + 'LEAK:' + data.strip().replace(' ', '_'))\n"
    "a, b = map(int, data.split())\nif (a, b) == (1, 2):\n    print(3)\nelse:\n    sys.exit(3)\n"
)
#: fails the public test the same way: its stderr is the submitter's to see
PUBLIC_FAILER = (
    "import sys\ndata = sys.stdin.read()\nsys.stderr.write('PUBLIC' + 'ERR:' + data.strip().replace(' ', '_'))\n"
    "sys.exit(3)\n"
)


def predictions(item_ids: list[str], programs: dict[str, str]) -> bytes:
    """One answer per item: the item's program fenced as Python, or no code."""
    lines = []
    for item_id in item_ids:
        code = programs.get(item_id)
        lines.append(
            json.dumps({"item_id": item_id, "output": f"```python\n{code}```\n" if code else "I cannot solve this."})
        )
    return ("\n".join(lines) + "\n").encode()


def scored(benchmark: Benchmark, client: APIClient, model: str, programs: dict[str, str]) -> EvaluationRun:
    item_ids = benchmark.dataset_versions.get(is_current=True).item_ids
    response = submit(client, benchmark, predictions(item_ids, programs), model_name=model)
    assert response.status_code == 201, response.content
    run_id = response.json()["runs"][0]["id"]
    wait_for(lambda: finished(run_id), timeout=180, what="the run to finish")
    run = EvaluationRun.objects.get(pk=run_id)
    assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log)
    return run


def api_pages(client: APIClient, url: str) -> str:
    """A JSON response and every page after it (``next``), as text."""
    texts = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, (url, response.content[:300])
        texts.append(response.content.decode())
        body = response.json()
        url = body.get("next") if isinstance(body, dict) else None
    return "\n".join(texts)


def test_a_hidden_tests_input_copied_to_stderr_is_in_no_page_and_no_api_response(multi_lcb, user, celery_worker):
    client = api_for(user)
    run = scored(
        multi_lcb, client, "leaky-coder", {"t1_a/python": LEAKER, "t2_a/python": PUBLIC_FAILER, "t3_a/python": PY_SUM}
    )
    other = scored(multi_lcb, client, "plain-coder", {"t1_a/python": PY_SUM})
    leaky, plain = run.submission.model.slug, other.submission.model.slug

    sample = run.item_results.get(item_id="t1_a/python").detail["samples"][0]
    assert (sample["verdict"], sample["failed_test"], sample["failed_test_public"]) == ("runtime_error", 1, False)

    browser = Client()
    browser.force_login(user)  # the submitter, who sees the most
    pages = {
        url: browser.get(url, follow=True)
        for url in (
            f"/runs/{run.pk}/items/",
            f"/runs/{run.pk}/items/?failed=1",
            f"/runs/{run.pk}/status/",
            f"/submissions/{run.submission_id}/",
            f"/benchmarks/{multi_lcb.slug}/",
            f"/models/{leaky}/",
            f"/compare/?a={leaky}&b={plain}",
        )
    }
    for url, response in pages.items():
        assert response.status_code == 200, url
    api = {
        url: api_pages(client, url)
        for url in (
            f"/api/runs/{run.pk}/",
            f"/api/runs/{run.pk}/items/",
            f"/api/runs/{run.pk}/items/?failed=1",
            f"/api/submissions/{run.submission_id}/",
            f"/api/benchmarks/{multi_lcb.slug}/leaderboard/",
            f"/api/models/{leaky}/profile/",
            f"/api/models/compare/?a={leaky}&b={plain}",
        )
    }
    shown = {url: response.content.decode() for url, response in pages.items()} | api
    assert [url for url, text in shown.items() if "HIDDENLEAK" in text or "-5_5" in text] == []
    # the public test's failure keeps its detail: the program's stderr, with the public input it copied
    assert "PUBLICERR:1_2" in shown[f"/runs/{run.pk}/items/"] and "PUBLICERR:1_2" in shown[f"/api/runs/{run.pk}/items/"]
    assert "failed test 2 (hidden)" in shown[f"/runs/{run.pk}/items/"]  # the hidden test's number and verdict are shown
