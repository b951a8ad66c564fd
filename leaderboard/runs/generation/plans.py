"""What a generation job has left to send for a run: its requests (built once per worker process), the
answers stored so far and, for a multi-turn evaluator, each sample's stored stages and which of them
wait for a decision on what follows. Used by leaderboard.runs.generation.worker."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from evaluators.core import Conversation, ModelRequest, evaluator_for, evaluator_version
from evaluators.core.media import media_counts
from evaluators.core.settings import GenerationSettings
from evaluators.core.types import FollowUp, Item, ServerOptions, Stage
from leaderboard.catalog.media import StorageMedia
from leaderboard.catalog.models import DatasetVersion
from leaderboard.catalog.services import dataset_items
from leaderboard.runs.models import EvaluationRun, GeneratedOutput


@dataclass(frozen=True)
class Turns:
    """What a multi-turn run needs to decide follow-ups: the configured evaluator's conversation, its items
    and first requests by item id, the generation settings given and the most stages an item takes."""

    conversation: Conversation
    items: dict[str, Item]
    first: dict[str, ModelRequest]
    settings: dict[str, Any]
    max_stages: int


@dataclass
class RunPlan:
    """A run's requests still to send, how many it has in all, and its stored answers."""

    run: EvaluationRun
    pending: list[ModelRequest]
    total: int
    samples: dict[str, int] = field(default_factory=dict)  # item id -> n
    #: (item id, sample index) -> its predictions line, for every row of the run known to be stored as it is here
    lines: dict[tuple[str, int], str] = field(default_factory=dict)
    #: an answer of this attempt met one stored by someone else: the predictions are read back
    outputs_stale: bool = False
    #: multi-turn runs only: the stored stages of each (item, sample), and those whose next stage is undecided
    turns: Turns | None = None
    conversations: dict[tuple[str, int], list[Stage]] = field(default_factory=dict)
    undecided: list[tuple[str, int]] = field(default_factory=list)
    #: (item id, sample index, stage) -> the messages and tool run of a follow-up request in flight
    follow_ups: dict[tuple[str, int, int], FollowUp] = field(default_factory=dict)
    requests: tuple[ModelRequest, ...] = ()
    #: what the model's server must allow for these requests (the evaluator's ``generation().server``)
    options: ServerOptions = field(default_factory=ServerOptions)
    #: where the requests' images are read from when they are sent (None: the dataset has none)
    media: StorageMedia | None = None

    def remaining(self) -> int:
        """Progress units left: requests, or for a multi-turn run, stages of samples not yet stored."""
        if self.turns is None:
            return len(self.pending)
        return self.total - sum(len(stages) for stages in self.conversations.values())


@dataclass(frozen=True)
class Prepared:
    requests: tuple[ModelRequest, ...]
    turns: Turns | None
    options: ServerOptions


@lru_cache(maxsize=2)
def _prepared(
    dataset_version_id: int,
    content_hash: str,
    evaluator_key: str,
    evaluator_version_: str,
    evaluator_settings: str,
    generation_settings: str,
) -> Prepared:
    """Every request of a dataset version, built once per worker process: reading a dataset's items
    (decoding every problem's private tests: 10 MB for the Multi-LCB sample, 182 MB at LiveCodeBench
    v6's size; the items are read a chunk at a time, never held) costs far more than the prompts it
    yields, and a worker generates the same benchmark for model after model. Keyed by the dataset's content
    hash, the evaluator's version and both settings (the generation settings' ``cache_key``, whose
    settings given are what ``build_requests`` takes), so nothing stale is ever sent. The items are kept
    only for a multi-turn evaluator, whose follow-ups need them."""
    evaluator = evaluator_for(evaluator_key, settings=json.loads(evaluator_settings))
    version = DatasetVersion.objects.get(pk=dataset_version_id)
    items = dataset_items(version)
    generation = json.loads(generation_settings)
    requests = tuple(request for item in items for request in evaluator.build_requests(item, generation))
    turns = None
    needs = evaluator.generation()
    conversation = needs.conversation
    max_stages = conversation.max_stages(generation) if conversation is not None else 1
    if (
        conversation is not None and max_stages > 1
    ):  # a multi-turn benchmark: follow_up is asked after each stored stage
        turns = Turns(
            conversation, {item.id: item for item in items}, {r.item_id: r for r in requests}, generation, max_stages
        )
    options = needs.server
    counts = [media_counts(request.messages) for request in requests]  # what the requests send, counted
    options = options.merged(
        ServerOptions(
            images_per_prompt=max((i for i, _ in counts), default=0),
            videos_per_prompt=max((v for _, v in counts), default=0),
        )
    )
    return Prepared(requests, turns, options)


def plan_run(run: EvaluationRun, generation: GenerationSettings) -> RunPlan:
    """What is left to send for ``run``: one query for the answers an earlier attempt stored."""
    prepared = _prepared(
        run.dataset_version_id,
        run.dataset_version.content_hash,
        run.evaluator_key,
        evaluator_version(run.evaluator_key),
        json.dumps(run.evaluator_settings or {}, sort_keys=True),
        generation.cache_key(),
    )
    requests = prepared.requests
    turns = prepared.turns
    samples = {r.item_id: r.n for r in requests}
    total = len(requests) if turns is None else sum(samples.values()) * turns.max_stages
    prefix = run.dataset_version.media_prefix
    plan = RunPlan(
        run,
        [],
        total,
        samples,
        turns=turns,
        requests=requests,
        options=prepared.options,
        media=StorageMedia(prefix) if prefix else None,
    )
    outstanding(plan)
    return plan


def outstanding(plan: RunPlan) -> None:
    """Read what the run has stored and set what is left: the first-stage requests not answered and,
    for a multi-turn run, the conversations whose next stage is still to decide."""
    rows = GeneratedOutput.objects.filter(run=plan.run)
    plan.follow_ups = {}
    have: dict[str, int] = {}
    if plan.turns is None:
        plan.lines = {
            (i, s): predictions_line(i, s, o, k, e)
            for i, s, o, k, e in rows.values_list("item_id", "sample_index", "output", "error_kind", "error")
        }
        for item_id, _ in plan.lines:
            have[item_id] = have.get(item_id, 0) + 1
    else:
        plan.conversations = {}
        for row in rows.order_by("item_id", "sample_index", "stage").values(*STAGE_COLUMNS):
            plan.conversations.setdefault((row["item_id"], row["sample_index"]), []).append(stage_of_row(row))
        for item_id, _ in plan.conversations:
            have[item_id] = have.get(item_id, 0) + 1
        plan.undecided = [key for key, stages in plan.conversations.items() if len(stages) < plan.turns.max_stages]
    plan.pending = [r for r in plan.requests if have.get(r.item_id, 0) < r.n]


STAGE_COLUMNS = (
    "item_id",
    "sample_index",
    "stage",
    "output",
    "finish_reason",
    "error_kind",
    "error",
    "messages",
    "tool",
)


def stage_of_row(row: dict[str, Any]) -> Stage:
    """A stored (or about to be stored) row as a transcript stage."""
    return Stage(
        messages=list(row.get("messages") or []),
        answer=row["output"],
        tool=dict(row.get("tool") or {}),
        error_kind=row.get("error_kind", ""),
        error=row.get("error", ""),
        finish_reason=row.get("finish_reason", ""),
    )


def predictions_line(
    item_id: str,
    sample_index: int,
    output: str,
    error_kind: str = "",
    error: str = "",
    transcript: Sequence[Stage] = (),
) -> str:
    """One predictions line: the answer, why it is not a plain one (when so), and a multi-turn item's transcript."""
    line: dict[str, Any] = {"item_id": item_id, "sample_index": sample_index, "output": output}
    if error_kind:
        line["error_kind"], line["error"] = error_kind, error
    if transcript:
        line["transcript"] = [stage.to_dict() for stage in transcript]
    return json.dumps(line) + "\n"
