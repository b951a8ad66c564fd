"""The Evaluator protocol: what every benchmark package implements.

An evaluator turns a benchmark's released files into ``Item`` rows (``import_release``), builds the
model requests for an item (``build_requests``), scores an item's predictions (``score_item``) and
aggregates item scores into metrics with 95% intervals (``aggregate``). Items and scores are plain
data, so the same code runs in a worker, in a test and on the command line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Protocol, Sequence, runtime_checkable

from evaluators.core.media import MediaSink
from evaluators.core.types import Item, ItemScore, MetricColumn, MetricValue, ModelRequest, Prediction, SliceDimension


@runtime_checkable
class Evaluator(Protocol):
    #: registry key, equal to the Benchmark's ``evaluator_key``
    key: str
    #: human name and what it measures, shown on pages
    title: str
    description: str
    #: what the benchmark needs from a model: "text", "image" or "video" (a capability order: a model
    #: enters the benchmarks its own modality covers, evaluators.core.modality)
    modality: str
    #: leaderboard columns; exactly one is primary
    metric_columns: Sequence[MetricColumn]
    #: dimensions a leaderboard can filter by
    slice_dimensions: Sequence[SliceDimension]
    #: samples per item expected by default (pass@k needs several)
    default_samples: int

    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        """Read the benchmark's released format and yield normalized items. Raise DatasetError
        naming the record and field for anything malformed. A benchmark with images hands each to
        ``media`` (``put``: kept once by content hash; None: only hashed) and keeps its key in the
        item's payload; text benchmarks ignore it (evaluators.core.media)."""
        ...

    def sample_dataset(self) -> Path:
        """Path of the sample release shipped with the package (for ``make run`` and the tests)."""
        ...

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        """The chat requests a model must answer for this item."""
        ...

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        """Score every prediction of one item. Must not raise on bad model output: a wrong or
        unparsable answer is a score, not an error. ``Prediction.error_kind`` says why an output is not
        a plain answer (refused, cut off, empty...), for coverage counts."""
        ...

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        """Headline and per-slice metrics with 95% intervals."""
        ...

    def environment(self) -> dict[str, str]:
        """Versions of whatever the scores depend on beyond Python (compilers, judges...)."""
        ...

    # Optional, looked up with getattr by the site:
    #   date_slice: str                      -- item slice holding a date; enables the date window
    #   example_predictions(items) -> bytes  -- a ready-to-submit predictions file for newcomers
    #   method_notes() -> list[MethodNote]   -- how scores are obtained (rules, toolchains), on the page
    #   configured(settings) -> Evaluator    -- a copy with validated per-run settings
    #   judge_role: str                      -- the evaluator needs a judge model: the key of the judge
    #                                           in the LEADERBOARD_JUDGES setting
    #   with_judge(judge) -> Evaluator       -- a copy that asks ``judge`` (an evaluators.llm.judges.Judge);
    #                                           called by the worker for evaluators with a judge_role.
    #                                           score_item asks through ``judge.ask_many`` and returns
    #                                           every JudgeBatch's to_dict() in
    #                                           ``ItemScore.detail["judgements"]`` (stored with the item
    #                                           result, shown on the per-item page, fallbacks counted by
    #                                           ``evaluators.llm.judges.judge_fallbacks``); it lets
    #                                           JudgeUnavailable propagate (the run is retried). The run
    #                                           records the judge in ``environment["judge"]`` and the
    #                                           leaderboard names it.
    #   baseline_predictions(items) -> {name: bytes} -- reference predictions (PoliCon's Random and
    #                                           Greedy), scored like any submission and shown as marked,
    #                                           unranked rows
    #   dataset_notes(items) -> list[MethodNote] -- diagnostics of a dataset version, computed at import
    #   follow_up(item, transcript, sample_index, settings) -> FollowUp | None
    #                                        -- a multi-turn item: after each stored stage of a sample
    #                                           (``transcript``: tuple of Stage, the last one just answered),
    #                                           the next turn's messages (and the tool run that made them),
    #                                           or None when the item is finished. Deterministic: a resumed
    #                                           job asks again for stages it had not stored. Called from the
    #                                           generating worker's tool threads (it may run sandboxed code);
    #                                           an InfrastructureError it raises retries the job. The
    #                                           prediction's ``output`` is the last answer, its
    #                                           ``transcript`` every stage (evaluators.core.turns).
    #   max_stages(settings) -> int          -- the most stages follow_up asks for (the progress bar's unit)
    #   server_options(settings) -> ServerOptions -- what a self-hosted model's server must allow for this
    #                                           benchmark's requests (images per prompt, context length);
    #                                           passed to the server and recorded with the run
    #   heatmap: (dimension, ((metric, full scale), ...)) -- a two-way breakdown shown on each model's
    #                                           leaderboard row: a row per value of the slice dimension, a
    #                                           cell per metric (its per-slice score), shaded by value / scale
    #   needs_transcript() -> str            -- non-empty: a predictions file with a line without a transcript
    #                                           is refused with this reason (the platform must run the model)
