"""Platform benchmarks (not tests): leaderboard page and API latency with 1,000 models x 5 benchmarks
stored, against the trivial /healthz view served the same way in the same run, with DB queries per
page at 10 and 1,000 rows; and pipeline overhead: items per second through queue, worker, evaluator
and database against the same evaluator called in-process.

The 1,000 models are stored once; the latency measurement then runs BENCH_REPEATS times (default 3),
and the pipeline BENCH_REPEATS times (each its in-process run and its run through a freshly started
worker). Figures: the median of the runs, the worst run in brackets; the 1-minute load average is
taken before each run.

Run: ``.venv/bin/python bench/bench_platform.py [--publish] [--pages-only]`` (also in ``make bench``; it
needs this machine's Postgres and Redis). Results: var/bench/platform.{json,md}, or bench/results/ with
--publish.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import load_average, median_worst, percentile, recreate_database, spread, write_results

REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
BENCH_DB = "leaderboard_bench"
os.environ.setdefault("DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{BENCH_DB}")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/13")
os.environ.setdefault("LEADERBOARD_VAR_DIR", str(REPO / "var" / "bench"))
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ["DJANGO_SETTINGS_MODULE"] = "leaderboard.settings"


def timed(client, url: str, rounds: int) -> dict:
    client.get(url)  # warm
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        response = client.get(url)
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return {"median_ms": statistics.median(samples), "p95_ms": percentile(samples, 0.95), "rounds": rounds}


def populate(models: int) -> None:
    from django.contrib.auth.models import User
    from django.utils import timezone

    from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
    from leaderboard.runs.models import EvaluationRun, LeaderboardEntry, RunStatus, Score, Submission

    owner, _ = User.objects.get_or_create(username="bench")
    benchmarks = list(Benchmark.objects.exclude(kind="arena"))
    versions = {}
    for b in benchmarks:
        versions[b.pk] = b.dataset_versions.filter(is_current=True).first() or DatasetVersion.objects.create(
            benchmark=b, tag="bench", content_hash="0" * 64, storage_key="none", item_count=100, is_current=True
        )
    existing = Model.objects.count()
    new_models = Model.objects.bulk_create(
        [
            Model(name=f"bench-model-{i}", slug=f"bench-model-{i}", owner=owner)
            for i in range(existing, existing + models)
        ]
    )
    subs = Submission.objects.bulk_create([Submission(model=m, owner=owner) for m in new_models])
    runs = EvaluationRun.objects.bulk_create(
        [
            EvaluationRun(
                submission=s,
                benchmark=b,
                dataset_version=versions[b.pk],
                status=RunStatus.SUCCEEDED,
                evaluator_key=b.evaluator_key,
                items_total=100,
                items_done=100,
                evaluator_version="bench",
            )
            for s in subs
            for b in benchmarks
        ]
    )
    slices = [""] + [
        f"language={lang}"
        for lang in (
            "python",
            "cpp",
            "java",
            "csharp",
            "go",
            "rust",
            "javascript",
            "typescript",
            "ruby",
            "php",
            "kotlin",
            "scala",
        )
    ]
    scores = []
    for i, run in enumerate(runs):
        value = (i * 7919 % 1000) / 1000
        for s_key in slices:
            scores.append(
                Score(
                    run=run,
                    key="pass@1",
                    slice_key=s_key,
                    value=value,
                    ci_low=max(0, value - 0.05),
                    ci_high=min(1, value + 0.05),
                    n=100,
                )
            )
        scores.append(Score(run=run, key="python_gap", slice_key="", value=value / 3, ci_low=None, ci_high=None, n=100))
    Score.objects.bulk_create(scores, batch_size=5000)
    values_by_run: dict[int, dict] = {}
    for score in scores:
        cid = f"{score.key}|{score.slice_key}" if score.slice_key else score.key
        values_by_run.setdefault(score.run_id, {})[cid] = [score.value, score.ci_low, score.ci_high, score.n]
    now = timezone.now()
    LeaderboardEntry.objects.bulk_create(
        [
            LeaderboardEntry(
                benchmark_id=run.benchmark_id,
                dataset_version_id=run.dataset_version_id,
                model_id=run.submission.model_id,
                is_public=True,
                run=run,
                values=values_by_run[run.pk],
                finished_at=now,
            )
            for run in runs
        ],
        batch_size=2000,
    )


def bench_pages(results: dict) -> None:
    """Stores the 1,000 models once (counting the page's DB queries at 10 and 1,000 rows), then measures
    the latency REPEATS times: each run a fresh set of timed requests to the three URLs."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    populate(10)
    with CaptureQueriesContext(connection) as q10:
        client.get("/benchmarks/multi-lcb/")
    populate(990)
    with CaptureQueriesContext(connection) as q1000:
        client.get("/benchmarks/multi-lcb/")
    results["queries_per_page"] = {"rows_10": len(q10), "rows_1000": len(q1000)}
    runs = []
    for _ in range(REPEATS):
        load = load_average()
        trivial = timed(client, "/healthz", 60)
        page = timed(client, "/benchmarks/multi-lcb/", 30)
        api = timed(client, "/api/benchmarks/multi-lcb/leaderboard/", 30)
        runs.append(
            {
                "load_average_before": load,
                "trivial_view": trivial,
                "leaderboard_page": page,
                "leaderboard_api": api,
                "page_ratio_median": page["median_ms"] / trivial["median_ms"],
                "api_ratio_median": api["median_ms"] / trivial["median_ms"],
            }
        )
    latency: dict = {}
    for view in ("trivial_view", "leaderboard_page", "leaderboard_api"):
        figures: dict = {"rounds": runs[0][view]["rounds"]}
        for field in ("median_ms", "p95_ms"):
            figures[field], figures[f"worst_{field}"] = median_worst(
                [run[view][field] for run in runs], higher_is_better=False
            )
        latency[view] = figures
    for ratio in ("page_ratio_median", "api_ratio_median"):
        latency[ratio], latency[f"worst_{ratio}"] = median_worst([run[ratio] for run in runs], higher_is_better=False)
    latency["runs"] = runs
    results["latency"] = latency


def bench_pipeline(results: dict) -> None:
    """The sample dataset's Python items with the reference solutions (other languages answer with
    no code), scored in-process and then through Redis + a Celery worker + Postgres; REPEATS times,
    each run with a freshly started worker (its start-up not timed), as a single run has."""
    from django.contrib.auth.models import User
    from django.db import connection

    from evaluators.core import evaluator_for
    from evaluators.core.files import parse_predictions
    from evaluators.core.runner import score_items
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import dataset_items_path
    from leaderboard.runs.services import submission_create_from_predictions

    benchmark = Benchmark.objects.get(slug="multi-lcb")
    version = benchmark.dataset_versions.get(is_current=True)
    solutions = REPO / "evaluators" / "multi_lcb" / "data" / "solutions"
    lines = []
    for item_id in version.item_ids:
        qid, lang = item_id.rsplit("/", 1)
        code = (solutions / qid / "python.py").read_text() if lang == "python" else None
        lines.append(json.dumps({"item_id": item_id, "output": f"```python\n{code}```" if code else "no code"}))
    data = ("\n".join(lines) + "\n").encode()
    concurrency = int(os.environ.get("LEADERBOARD_RUN_CONCURRENCY", "2"))
    evaluator = evaluator_for("multi-lcb")
    items = __import__("evaluators.core.files", fromlist=["read_items"]).read_items(
        dataset_items_path(version, REPO / "var" / "bench" / "cache")
    )
    predictions = parse_predictions(data, version.item_ids)
    env = dict(os.environ, LEADERBOARD_RUN_CONCURRENCY=str(concurrency))
    log_path = REPO / "var" / "bench" / "worker.log"
    owner = User.objects.create_user("pipeline", is_staff=True)
    runs = []
    for _ in range(REPEATS):
        load = load_average()
        start = time.perf_counter()
        in_process = list(score_items(evaluator, items, predictions, concurrency=concurrency))
        in_process_s = time.perf_counter() - start

        log = log_path.open("wb")
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "workers.celery",
                "worker",
                "-Q",
                "cpu",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
            ],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            # Worker start-up (including the toolchain probes of each pool process) is not a per-run cost.
            deadline = time.monotonic() + 120
            while b" ready." not in log_path.read_bytes() and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(3)
            start = time.perf_counter()
            submission = submission_create_from_predictions(
                owner=owner, benchmark=benchmark, model_name="pipeline", data=data
            )
            run = submission.runs.get()
            while True:
                run.refresh_from_db()
                if run.is_finished:
                    break
                time.sleep(0.1)
            pipeline_s = time.perf_counter() - start
            assert run.status == "succeeded", (run.failure_kind, run.failure_message)
        finally:
            os.killpg(worker.pid, 15)
            worker.wait(30)
            log.close()
            connection.close()
        n = len(in_process)
        runs.append(
            {
                "load_average_before": load,
                "items": n,
                "in_process_s": in_process_s,
                "pipeline_s": pipeline_s,
                "in_process_items_per_s": n / in_process_s,
                "pipeline_items_per_s": n / pipeline_s,
                "overhead": pipeline_s / in_process_s - 1,
            }
        )
    pipeline: dict = {"items": runs[0]["items"]}
    for field, higher_is_better in (
        ("in_process_s", False),
        ("pipeline_s", False),
        ("in_process_items_per_s", True),
        ("pipeline_items_per_s", True),
        ("overhead", False),
    ):
        pipeline[field], pipeline[f"worst_{field}"] = median_worst(
            [run[field] for run in runs], higher_is_better=higher_is_better
        )
    pipeline["runs"] = runs
    results["pipeline"] = pipeline


def main() -> None:
    only = sys.argv[1:]
    recreate_database(BENCH_DB)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_samples", verbosity=0)
    # load_samples queues the sample baselines' runs and the demo model's pre-flight: dropped from the
    # broker, so that the pipeline's worker scores the bench's run alone
    from workers.celery import app

    app.control.purge()
    results: dict = {
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "repeats": REPEATS,
    }
    bench_pages(results)
    if "--pages-only" in only:
        results["load_averages"] = [run["load_average_before"] for run in results["latency"]["runs"]]
        print(json.dumps(results, indent=1))
        return
    bench_pipeline(results)
    lat, pipe = results["latency"], results["pipeline"]
    page_loads = [run["load_average_before"] for run in lat["runs"]]
    pipe_loads = [run["load_average_before"] for run in pipe["runs"]]
    results["load_averages"] = page_loads + pipe_loads  # in the order taken: the latency runs, then the pipeline runs

    def cell(view: str, field: str) -> str:
        return spread([run[view][field] for run in lat["runs"]], higher_is_better=False)

    def ratio(field: str) -> str:
        return spread([run[field] for run in lat["runs"]], higher_is_better=False)

    def pipe_cell(field: str, higher_is_better: bool, fmt: str = "{:.1f}") -> str:
        return spread([run[field] for run in pipe["runs"]], fmt, higher_is_better=higher_is_better)

    md = [
        f"# Platform benchmark ({results['date']}, {results['machine']})",
        "",
        f"{REPEATS} runs of each measurement; load average before each run: latency {page_loads}, pipeline "
        f"{pipe_loads}. "
        "Figures: median of the runs (worst run in brackets); a run's median ms and p95 ms are over its requests "
        "(60 to `/healthz`, 30 to each leaderboard URL). Command: `.venv/bin/python bench/bench_platform.py`.",
        "",
        "| request (1,000 models x 5 benchmarks stored) | median ms | p95 ms | median / trivial |",
        "|---|---|---|---|",
        f"| trivial view `/healthz` | {cell('trivial_view', 'median_ms')} | {cell('trivial_view', 'p95_ms')} | 1.0 |",
        f"| leaderboard page | {cell('leaderboard_page', 'median_ms')} | {cell('leaderboard_page', 'p95_ms')} | "
        f"{ratio('page_ratio_median')} |",
        f"| leaderboard API | {cell('leaderboard_api', 'median_ms')} | {cell('leaderboard_api', 'p95_ms')} | "
        f"{ratio('api_ratio_median')} |",
        "",
        f"DB queries per leaderboard page: {results['queries_per_page']['rows_10']} with 10 rows, "
        f"{results['queries_per_page']['rows_1000']} with 1,000 rows.",
        "",
        "| pipeline | items | seconds | items/s |",
        "|---|---|---|---|",
        f"| evaluator in-process | {pipe['items']} | {pipe_cell('in_process_s', False)} | "
        f"{pipe_cell('in_process_items_per_s', True)} |",
        f"| queue + worker + Postgres | {pipe['items']} | {pipe_cell('pipeline_s', False)} | "
        f"{pipe_cell('pipeline_items_per_s', True)} |",
        "",
        f"Pipeline overhead: "
        f"{spread([100 * run['overhead'] for run in pipe['runs']], '{:.1f}%', higher_is_better=False)}.",
        "",
    ]
    write_results("platform", results, md)


if __name__ == "__main__":
    main()
