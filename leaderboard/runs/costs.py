"""What a run cost, recorded when it succeeds (``EvaluationRun.cost``) and shown on the submission's
page, as optional columns on the board (``?costs=1``) and summed per model on its profile.

- Generation: the prompt and completion tokens the model's server reported for the run's outputs
  (``GeneratedOutput``), the generation job's time with its model loaded (started to finished) and
  the GPU kind of its queue (``gpu-<kind>``); none for a predictions file.
- Judge: the calls made (every attempt, retries included) and their tokens, from the judge calls
  stored with the item results.
- Sandbox: CPU and wall seconds of the programs run for the run's samples, where the evaluator
  records them (Multi-LCB's programs).
- Wall: the run's own time from its first claim to its success (queueing excluded).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django.db.models import Sum

from leaderboard.runs.models import EvaluationRun, GeneratedOutput, GenerationJob, ItemResult

#: what the board's optional cost columns show, in order: (key of RunCost, label, unit)
COST_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("completion_tokens", "Generated tokens", "tokens"),
    ("judge_calls", "Judge calls", "calls"),
    ("sandbox_cpu_seconds", "Sandbox CPU", "s"),
    ("wall_seconds", "Run time", "s"),
)


@dataclass(frozen=True)
class RunCost:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    generation_seconds: float | None = None
    gpu: str = ""
    judge_calls: int = 0
    judge_prompt_tokens: int = 0
    judge_completion_tokens: int = 0
    sandbox_cpu_seconds: float = 0.0
    sandbox_wall_seconds: float = 0.0
    wall_seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _judge_usage(detail: Mapping[str, Any]) -> tuple[int, int, int]:
    """(calls, prompt tokens, completion tokens) of the judge calls stored in one item's detail."""
    calls = prompt = completion = 0
    for batch in detail.get("judgements") or ():
        for call in (batch.get("calls") or ()) if isinstance(batch, Mapping) else ():
            if not isinstance(call, Mapping):
                continue
            calls += int(call.get("attempts") or 1)
            usage = call.get("usage")
            if not isinstance(usage, Mapping):
                continue
            prompt += int(usage.get("prompt_tokens") or 0)
            completion += int(usage.get("completion_tokens") or 0)
    return calls, prompt, completion


def _sandbox_seconds(detail: Mapping[str, Any]) -> tuple[float, float]:
    """(CPU, wall) seconds of the programs an item's samples ran, where the evaluator recorded them."""
    cpu = wall = 0.0
    for sample in detail.get("samples") or ():
        if isinstance(sample, Mapping):
            cpu += float(sample.get("cpu_seconds") or 0.0)
            wall += float(sample.get("wall_seconds") or 0.0)
    return cpu, wall


def run_cost(run: EvaluationRun, *, finished_at: dt.datetime) -> RunCost:
    """The run's cost from what its outputs, item results and generation job recorded."""
    tokens = GeneratedOutput.objects.filter(run=run).aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    job = (
        GenerationJob.objects.filter(submission_id=run.submission_id).only("queue", "started_at", "finished_at").first()
    )
    judge = [0, 0, 0]
    cpu = wall = 0.0
    for detail in ItemResult.objects.filter(run=run).values_list("detail", flat=True).iterator(chunk_size=200):
        if not isinstance(detail, Mapping):
            continue
        judge = [a + b for a, b in zip(judge, _judge_usage(detail))]
        item_cpu, item_wall = _sandbox_seconds(detail)
        cpu, wall = cpu + item_cpu, wall + item_wall
    generation = None
    if job is not None and job.started_at and job.finished_at:
        generation = round((job.finished_at - job.started_at).total_seconds(), 3)
    return RunCost(
        prompt_tokens=int(tokens["p"] or 0),
        completion_tokens=int(tokens["c"] or 0),
        generation_seconds=generation,
        gpu=job.queue.removeprefix("gpu-") if job is not None and job.queue.startswith("gpu-") else "",
        judge_calls=judge[0],
        judge_prompt_tokens=judge[1],
        judge_completion_tokens=judge[2],
        sandbox_cpu_seconds=round(cpu, 3),
        sandbox_wall_seconds=round(wall, 3),
        wall_seconds=round((finished_at - run.started_at).total_seconds(), 3) if run.started_at else None,
    )


def summed(costs: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Runs' recorded costs added up (a model's total over its runs); figures a run lacks count 0."""
    total: dict[str, float] = {}
    for cost in costs:
        for key, value in cost.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value
    return total
