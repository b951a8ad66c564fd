"""What a submitter should expect from a board before uploading (the submit page and
``/benchmarks/<slug>/items.jsonl``): what the current dataset version holds, the shape of a
predictions line for it, whether a file is accepted at all, where to get an example file and the
requests themselves, and how long recent runs of the board took with how many are waiting now.

The dataset's figures are computed once per dataset version (cached by its content hash); the
timings are ``eta``'s: the recorded durations of recent runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from django.core.cache import cache

from leaderboard.catalog.evaluators import configured_evaluator
from leaderboard.catalog.labels import labels_for
from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.catalog.services import dataset_items
from leaderboard.pagecache import quietly
from leaderboard.runs.eta import Typical, run_durations
from leaderboard.runs.models import EvaluationRun, RunStatus


@dataclass(frozen=True)
class Guide:
    """One board's expectations for a predictions file."""

    benchmark: Benchmark
    dataset_tag: str
    items: int
    samples: int
    checks: int  # the checks scoring runs over one answer to every item (Multi-LCB: test cases); 0: none counted
    first_ids: tuple[str, ...]
    slices: tuple[str, ...]  # the items' slice dimensions in words
    example_line: str
    file_refused: str
    has_example: bool
    requests_download: bool
    typical: Typical | None  # how long recent runs on this dataset version took once started
    waiting: int


@dataclass(frozen=True)
class _Facts:
    """What a dataset version holds, as the guide shows it (cached: a version's items never change)."""

    items: int
    checks: int
    first_ids: tuple[str, ...]
    slices: tuple[str, ...]
    has_example: bool


def _dataset_facts(benchmark: Benchmark, dataset: DatasetVersion) -> _Facts:
    key = f"submit-guide:v2:{dataset.content_hash}:{benchmark.slug}"
    found = quietly(lambda: cache.get(key))
    if not isinstance(found, _Facts):
        shown = configured_evaluator(benchmark).presentation()
        items = dataset_items(dataset)
        found = _Facts(
            items=len(items),
            checks=sum(shown.item_checks(item) for item in items),
            first_ids=tuple(item.id for item in items[:3]),
            slices=tuple(sorted({k for item in items for k in item.slices})),
            has_example=bool(items) and shown.example_predictions(items[:1]) is not None,
        )
        quietly(lambda: cache.set(key, found, None))
    return found


def guide_for(benchmark: Benchmark) -> Guide | None:
    """The board's guide on its current dataset version (None: no evaluator or no dataset yet)."""
    dataset = benchmark.dataset_versions.filter(is_current=True).first()
    if dataset is None or not benchmark.evaluator_key:
        return None
    evaluator = configured_evaluator(benchmark)
    facts = _dataset_facts(benchmark, dataset)
    first_ids = facts.first_ids
    samples = evaluator.presentation().default_samples
    generation = evaluator.generation()
    example: dict[str, object] = {
        "item_id": first_ids[0] if first_ids else "ITEM_ID",
        "output": "the model's answer, as it wrote it",
    }
    if samples > 1:
        example["sample_index"] = 0
    return Guide(
        benchmark=benchmark,
        dataset_tag=dataset.tag,
        items=facts.items,
        samples=samples,
        checks=facts.checks,
        first_ids=first_ids,
        slices=tuple(labels_for(benchmark).dimension(key) for key in facts.slices),
        example_line=json.dumps(example, ensure_ascii=False),
        file_refused=generation.transcript_required(),
        has_example=facts.has_example,
        requests_download=generation.modality == "text",
        typical=Typical.of(run_durations(benchmark_id=benchmark.pk, dataset_version_id=dataset.pk)),
        waiting=EvaluationRun.objects.filter(benchmark=benchmark, status=RunStatus.QUEUED).count(),
    )


def guides() -> list[Guide]:
    """Every available board's guide, in the catalogue's order."""
    found = (guide_for(b) for b in Benchmark.objects.exclude(evaluator_key="").order_by("position", "pk"))
    return [g for g in found if g is not None]


def item_requests(benchmark: Benchmark) -> Iterator[bytes]:
    """The current dataset version's requests as JSON lines (item id, slices and the chat requests the
    platform would send, with their sampling settings), for running a text model offline and submitting
    its answers. Streamed item by item."""
    dataset = benchmark.dataset_versions.filter(is_current=True).first()
    if dataset is None or not benchmark.evaluator_key:
        return
    evaluator = configured_evaluator(benchmark)
    for item in dataset_items(dataset):
        requests = [
            {
                "messages": r.messages,
                "n": r.n,
                "temperature": r.temperature,
                "top_p": r.top_p,
                "max_tokens": r.max_tokens,
            }
            for r in evaluator.build_requests(item, {})
        ]
        yield (
            json.dumps({"item_id": item.id, "slices": item.slices, "requests": requests}, ensure_ascii=False) + "\n"
        ).encode()
