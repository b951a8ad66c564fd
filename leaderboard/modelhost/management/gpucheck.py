"""The GPU check (``manage.py gpu_check``, run by ``scripts/gpu-check``): one small Multi-LCB
submission of a local model, generated and scored by the worker's own code, measured from outside.

On a throwaway database (the script makes one: SQLite and files in a temporary var dir), it imports
the first N Multi-LCB sample problems as a dataset version, packs the model directory as a weights
upload, registers and pre-flights it, submits it with small generation settings, and then calls what
the Celery tasks call, in this process: ``generation_execute`` (which starts ``vllm serve`` or
``transformers serve``, sends every prompt and stops the server) and ``run_execute`` (scoring).
Nothing here sends a request or starts a server itself: a :class:`_Probe` thread only watches the
server the worker started (its log's command line, then ``/health``), the stored answers and the GPU
memory (``nvidia-smi``), so the figures describe the real path. It also runs one analysis program
(pandas and statsmodels on a small CSV at /data) in the data sandbox, which a generating worker needs
for code-assisted benchmarks.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from django.contrib.auth import get_user_model
from django.core.files import File
from django.db import close_old_connections, connection
from django.db.models import Sum
from django.test import override_settings

from evaluators.core import evaluator_for
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.catalog.services import benchmarks_sync
from leaderboard.chains.datasets import dataset_version_import
from leaderboard.chains.execution import run_execute
from leaderboard.modelhost.access import server_spec
from leaderboard.modelhost.services import ModelSource, model_preflight_run, model_register, upload_from_file
from leaderboard.runs.generation.worker import generation_execute
from leaderboard.runs.models import EvaluationRun, GeneratedOutput, GenerationJob, RunStatus
from leaderboard.runs.services import submission_create_for_model

BENCHMARK = "multi-lcb"
OWNER = "gpu-check"
#: memory the GPU may still show in use after the stop without counting as a leak (MiB): other
#: processes and the driver move it a little
FREED_TOLERANCE_MIB = 256
PROBE_EVERY_S = 0.1
GPU_SAMPLE_EVERY_S = 1.0


class GpuCheckRefused(ValueError):
    """The check cannot start (a non-empty database, a directory that is not a model...)."""


@dataclass
class GpuCheckReport:
    """What the check measured and how each step ended; ``problems`` empty means it passed."""

    server: str
    model: str
    problems_imported: int = 0
    requests: int = 0
    max_tokens: int = 0
    gpu_name: str | None = None
    gpu_memory_total_mib: int | None = None
    gpu_memory_mib_before: int | None = None
    gpu_memory_mib_peak: int | None = None
    gpu_memory_mib_after: int | None = None
    gpu_memory_freed: bool | None = None
    preflight_status: str = ""
    server_start_s: float | None = None
    generation_s: float | None = None
    requests_per_s: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    completion_tokens_per_s: float | None = None
    answers_stored: int = 0
    answers_with_error: int = 0
    server_port: int | None = None
    server_stopped: bool | None = None
    generation_outcome: str = ""
    generation_status: str = ""
    scoring_outcome: str = ""
    scoring_s: float | None = None
    run_status: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    analysis_status: str = ""
    analysis_s: float | None = None
    failure_kind: str = ""
    failure_message: str = ""
    log_tail: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def gpu_check_run(
    *, server: str, model_dir: Path | None, items: int, max_tokens: int, work_dir: Path
) -> GpuCheckReport:
    """Run the check (see the module docstring). ``model_dir`` None: a tiny random model is made in
    ``work_dir`` (its answers are noise; the check is about the path). Raises GpuCheckRefused before
    writing anything when the database is not a fresh one or the input is wrong."""
    if server not in ("vllm", "transformers"):
        raise GpuCheckRefused(f"server: must be vllm or transformers, not {server!r}")
    if items < 1:
        raise GpuCheckRefused(f"items: must be at least 1, not {items}")
    if max_tokens < 1:
        raise GpuCheckRefused(f"max_tokens: must be at least 1, not {max_tokens}")
    if model_dir is not None and not (model_dir / "config.json").is_file():
        raise GpuCheckRefused(f"model: {model_dir} is not a model directory (no config.json)")
    if get_user_model().objects.exists():
        raise GpuCheckRefused(
            "gpu_check registers a user, a model and a dataset: run it on a fresh, throwaway database "
            "(scripts/gpu-check makes one in a temporary directory), not on the site's"
        )
    if model_dir is None:
        from evaluators.llm.tiny import create_tiny_model

        # head_dim 64 (hidden 256, 4 heads): what vLLM's attention kernels support
        model_dir = create_tiny_model(work_dir / "tiny-llama", hidden_size=256)
    report = GpuCheckReport(server=server, model=str(model_dir), max_tokens=max_tokens)
    _check_analysis(report, work_dir)
    gpu = _gpu_facts()
    if gpu is not None:
        report.gpu_name, report.gpu_memory_total_mib, report.gpu_memory_mib_before = gpu

    # the server kind is an argument here; the worker's code reads it from the settings
    with override_settings(MODEL_SERVER=server):
        benchmark = _import_problems(items, work_dir, report)
        model = _register(model_dir, work_dir, report)
        if report.problems:
            return report
        submission = submission_create_for_model(
            owner=model.owner,
            model=model,
            benchmarks=[benchmark],
            generation_settings={"n": 1, "max_tokens": max_tokens, "temperature": 0.0},
        )
        job = GenerationJob.objects.get(submission=submission)
        run = EvaluationRun.objects.get(submission=submission)
        report.requests = run.items_total
        probe = _Probe(Path(server_spec(model).log_path), run_id=run.pk, expected=run.items_total)
        probe.start()
        try:
            report.generation_outcome = generation_execute(job_id=job.pk)
        finally:
            probe.finish()
    _measure_generation(report, probe, job, run)
    _score(report, run)
    return report


#: the data sandbox's check: an ordinary least squares fit on a CSV read from /data
_ANALYSIS_PROGRAM = """
import pandas as pd, statsmodels.formula.api as smf
df = pd.read_csv('/data/check.csv')
print(round(smf.ols('y ~ x', data=df).fit().params['x'], 3))
"""


def _check_analysis(report: GpuCheckReport, work_dir: Path) -> None:
    """Run one analysis program in the data sandbox (what CausalPitfalls' code-assisted turns run on a
    generating worker); a missing toolchain or a sandbox that cannot start is a problem of the check."""
    from evaluators.sandbox import Sandbox, SandboxUnavailable
    from evaluators.sandbox.analysis import run_analysis

    data = work_dir / "analysis-data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "check.csv").write_text("x,y\n" + "".join(f"{i},{2 * i + 1}\n" for i in range(50)))
    try:
        sandbox = Sandbox(base_dir=work_dir / "sandbox")
        with sandbox.data_dir(data) as mounted:
            run = run_analysis(sandbox, _ANALYSIS_PROGRAM, data=mounted)
    except SandboxUnavailable as exc:
        report.analysis_status = "unavailable"
        report.problems.append(f"the data sandbox cannot run analysis programs: {exc}")
        return
    report.analysis_status, report.analysis_s = run.status, run.seconds
    if not run.ok or run.stdout.strip() != "2.0":
        report.problems.append(
            f"the data sandbox's analysis program did not give the expected fit: {run.feedback(1000)}"
        )


def _import_problems(items: int, work_dir: Path, report: GpuCheckReport) -> Benchmark:
    """The first ``items`` problems of the Multi-LCB sample release (12 languages each) as the current dataset."""
    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug=BENCHMARK)
    lines = evaluator_for(benchmark.evaluator_key).presentation().sample_dataset().read_text().splitlines(keepends=True)
    release = work_dir / "release.jsonl"
    release.write_text("".join(lines[:items]))
    report.problems_imported = min(items, len(lines))
    dataset_version_import(benchmark=benchmark, release_path=release, tag=f"gpu-check-{report.problems_imported}")
    return benchmark


def _register(model_dir: Path, work_dir: Path, report: GpuCheckReport) -> Model:
    """Pack the directory as an upload (following links: a hub cache's snapshot is made of them),
    register it and pre-flight it, as a submitter's weights are."""
    owner = get_user_model().objects.create(username=OWNER)
    owner.set_unusable_password()
    owner.save(update_fields=["password"])
    archive = work_dir / f"{model_dir.name}.tar"
    with tarfile.open(archive, "w", dereference=True) as tar:
        tar.add(model_dir, arcname=model_dir.name)
    with archive.open("rb") as handle:
        upload = upload_from_file(owner=owner, file=File(handle, name=archive.name))
    archive.unlink()
    model = model_register(
        owner=owner,
        name=f"gpu-check {model_dir.name}",
        spec=ModelSource(source=Model.SOURCE_WEIGHTS, weights_upload_id=upload.pk),
    )
    report.preflight_status = model_preflight_run(model_id=model.pk)
    model.refresh_from_db()
    if report.preflight_status != Model.PREFLIGHT_PASSED:
        problems = "; ".join(f"{fld}: {msg}" for fld, msg in (model.preflight_report or {}).get("problems", []))
        report.failure_kind, report.failure_message = "preflight", problems
        report.problems.append(f"pre-flight {report.preflight_status}: {problems}")
    return model


def _measure_generation(report: GpuCheckReport, probe: _Probe, job: GenerationJob, run: EvaluationRun) -> None:
    job.refresh_from_db()
    report.generation_status = job.status
    report.log_tail = "\n".join(job.log.strip().splitlines()[-12:])
    outputs = GeneratedOutput.objects.filter(run=run)
    totals = outputs.aggregate(prompt=Sum("prompt_tokens"), completion=Sum("completion_tokens"))
    report.prompt_tokens, report.completion_tokens = totals["prompt"] or 0, totals["completion"] or 0
    report.answers_stored = outputs.count()
    report.answers_with_error = outputs.exclude(error="").count()
    report.server_port = probe.port
    report.gpu_memory_mib_peak = probe.gpu_peak_mib
    if probe.launched_at is not None and probe.ready_at is not None:
        report.server_start_s = round(probe.ready_at - probe.launched_at, 2)
    if probe.ready_at is not None and probe.all_stored_at is not None:
        elapsed = max(probe.all_stored_at - probe.ready_at, PROBE_EVERY_S)
        report.generation_s = round(elapsed, 2)
        report.requests_per_s = round(report.answers_stored / elapsed, 2)
        report.completion_tokens_per_s = round(report.completion_tokens / elapsed, 1)
    report.server_stopped = (
        None if probe.port is None else not _port_answers(probe.port) and not _serving_processes(probe.port)
    )
    after = _gpu_facts()
    if after is not None:
        report.gpu_memory_mib_after = after[2]
        if report.gpu_memory_mib_before is not None:
            report.gpu_memory_freed = after[2] <= report.gpu_memory_mib_before + FREED_TOLERANCE_MIB
    if job.status != RunStatus.SUCCEEDED:
        report.failure_kind = job.failure_kind or "generation"
        report.failure_message = job.failure_message or report.generation_outcome
        report.problems.append(f"generation {job.status}: {report.generation_outcome}")
    elif report.requests_per_s is None:
        report.problems.append("generation: the probe did not see the server become ready and every answer stored")
    if probe.port is None:
        report.problems.append("server: no model server was seen starting (no command line in its log)")
    elif not report.server_stopped:
        report.problems.append(f"server: still running on port {probe.port} after the job ended")
    if report.gpu_memory_freed is False:
        report.problems.append(
            f"gpu: {report.gpu_memory_mib_after} MiB in use after the stop, "
            f"{report.gpu_memory_mib_before} MiB before the start"
        )


def _score(report: GpuCheckReport, run: EvaluationRun) -> None:
    run.refresh_from_db()
    if run.status == RunStatus.QUEUED:  # handed to scoring: what the cpu worker does next
        began = time.monotonic()
        report.scoring_outcome = run_execute(run_id=run.pk)
        report.scoring_s = round(time.monotonic() - began, 2)
        run.refresh_from_db()
    report.run_status = run.status
    report.scores = {score.key: score.value for score in run.scores.filter(slice_key="")}
    if run.status != RunStatus.SUCCEEDED:
        if not report.failure_kind:
            report.failure_kind, report.failure_message = run.failure_kind, run.failure_message
        report.problems.append(
            f"run {run.status}: {run.failure_kind or report.scoring_outcome} {run.failure_message[:300]}".strip()
        )


class _Probe(threading.Thread):
    """Watches, without touching it, the server the worker starts: the moment its command line is in
    the log (the launch), the moment ``/health`` answers (ready), the moment every answer is stored,
    and the GPU memory's peak."""

    def __init__(self, log_path: Path, *, run_id: int, expected: int) -> None:
        super().__init__(daemon=True, name="gpu-check-probe")
        self.log_path, self.run_id, self.expected = log_path, run_id, expected
        self.log_offset = log_path.stat().st_size if log_path.exists() else 0
        self.port: int | None = None
        self.launched_at: float | None = None
        self.ready_at: float | None = None
        self.all_stored_at: float | None = None
        self.gpu_peak_mib: int | None = None
        self._halt = threading.Event()

    def run(self) -> None:
        next_gpu_sample = 0.0
        try:
            with httpx.Client(timeout=1.0) as http:
                while not self._halt.is_set():
                    now = time.monotonic()
                    if now >= next_gpu_sample:
                        self._sample_gpu()
                        next_gpu_sample = now + GPU_SAMPLE_EVERY_S
                    if self.port is None:
                        self._read_launch(now)
                    elif self.ready_at is None:
                        self._check_ready(http)
                    elif (
                        self.all_stored_at is None
                        and GeneratedOutput.objects.filter(run_id=self.run_id).count() >= self.expected
                    ):
                        self.all_stored_at = time.monotonic()
                    self._halt.wait(PROBE_EVERY_S)
        finally:
            connection.close()

    def _read_launch(self, now: float) -> None:
        try:
            with self.log_path.open("rb") as log:
                log.seek(self.log_offset)
                first = log.readline().decode("utf-8", "replace")
        except OSError:
            return
        if first.startswith("$ ") and first.endswith("\n") and "--port" in first.split():
            words = first.split()
            self.port = int(words[words.index("--port") + 1])
            self.launched_at = now

    def _check_ready(self, http: httpx.Client) -> None:
        try:
            if http.get(f"http://127.0.0.1:{self.port}/health").status_code == 200:
                self.ready_at = time.monotonic()
        except httpx.HTTPError:
            pass

    def _sample_gpu(self) -> None:
        facts = _gpu_facts()
        if facts is not None:
            self.gpu_peak_mib = max(self.gpu_peak_mib or 0, facts[2])

    def finish(self) -> None:
        self._halt.set()
        self.join()
        close_old_connections()


def _gpu_facts() -> tuple[str, int, int] | None:
    """(name, total MiB, used MiB) of the GPUs nvidia-smi lists (names joined, memory summed); None without."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total,memory.used", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    rows = [[part.strip() for part in line.split(",")] for line in out.splitlines() if line.count(",") == 2]
    rows = [row for row in rows if row[1].isdigit() and row[2].isdigit()]
    if not rows:
        return None
    return " + ".join(row[0] for row in rows), sum(int(row[1]) for row in rows), sum(int(row[2]) for row in rows)


def _port_answers(port: int) -> bool:
    try:
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=2.0)
    except httpx.HTTPError:
        return False
    return True


def _serving_processes(port: int) -> list[int]:
    """Processes still running a model server on ``port`` (from /proc: its command line)."""
    pids = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            words = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        if "serve" in words and "--port" in words and words[words.index("--port") + 1 :][:1] == [str(port)]:
            pids.append(int(entry.name))
    return pids
