"""Scoring predictions with bounded concurrency: the one loop shared by workers and the command line.

``score_batches`` scores items batch by batch on one pool of threads; a worker's batches are the
chunks it claims under a lease, the command line's are the dataset's items 64 at a time (``score_items``). An item
with no prediction is scored by the evaluator with none (an unanswered item counts, it is never
skipped): the command line's ``--allow-missing`` narrows the items explicitly instead. A multi-turn
item's transcripts are added to its score's detail here, for both. An item whose predictions do not
need its shared part (``Evaluator.needs_shared_part``: Multi-LCB's answers without code) is read
without it (``read_batch``), for both.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from evaluators.core.evaluator import Evaluator
from evaluators.core.itemstore import ItemsFile
from evaluators.core.types import Item, ItemScore, Prediction

Handle = TypeVar("Handle")


def group_predictions(predictions: Sequence[Prediction]) -> dict[str, list[Prediction]]:
    grouped: dict[str, list[Prediction]] = defaultdict(list)
    for prediction in predictions:
        grouped[prediction.item_id].append(prediction)
    for values in grouped.values():
        values.sort(key=lambda p: p.sample_index)
    return grouped


@dataclass(frozen=True)
class Scored(Generic[Handle]):
    """One event of ``score_batches``: an item's score (None only for a batch with nothing to score)
    and whether its batch is now complete."""

    batch: Handle
    score: ItemScore | None
    batch_done: bool


class _Open(Generic[Handle]):
    def __init__(self, handle: Handle, remaining: int) -> None:
        self.handle, self.remaining = handle, remaining


def score_batches(
    evaluator: Evaluator,
    predictions: Mapping[str, Sequence[Prediction]],
    next_batch: Callable[[], tuple[Handle, Sequence[Item]] | None],
    *,
    concurrency: int,
    stop: threading.Event | None = None,
) -> Iterator[Scored[Handle]]:
    """Score the items of each batch ``next_batch`` hands out, at most ``concurrency`` at a time, and
    yield every result as it completes (in this thread, so the caller may write it).

    The next batch is asked for as soon as the current one has no item left to start, so the pool
    never idles at a batch's tail; ``next_batch`` returning None means there is no more work. Once
    ``stop`` is set no item is started and the generator ends when those in flight are done.
    Closing the generator early cancels what has not started.

    An evaluator asking a judge (``Evaluator.judging().judge``, with its ``concurrency``) gets at least that
    many items in flight: its judge calls are bounded by the judge itself, and fewer items would
    leave the judge's bound unused on items with few calls.
    """
    judging = evaluator.judging()
    judge = judging.judge if judging is not None else None
    concurrency = max(1, concurrency, judge.concurrency if judge is not None else 0)
    waiting: list[tuple[_Open[Handle], Item]] = []
    in_flight: dict[Future[ItemScore], tuple[_Open[Handle], Item]] = {}
    exhausted = False
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="score") as pool:
        try:
            while True:
                while len(in_flight) < concurrency and not (stop is not None and stop.is_set()):
                    if not waiting:
                        opened = None if exhausted else next_batch()
                        if opened is None:
                            exhausted = True
                            break
                        handle, items = opened
                        batch = _Open(handle, len(items))
                        if not items:
                            yield Scored(handle, None, True)
                        waiting.extend((batch, item) for item in reversed(items))
                        continue
                    batch, item = waiting.pop()
                    in_flight[pool.submit(evaluator.score_item, item, predictions.get(item.id, []))] = (batch, item)
                if not in_flight:
                    return
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    batch, item = in_flight.pop(future)
                    batch.remaining -= 1
                    yield Scored(
                        batch.handle,
                        with_transcripts(future.result(), predictions.get(item.id, [])),
                        batch.remaining == 0,
                    )
        finally:
            for future in in_flight:
                future.cancel()


def with_transcripts(score: ItemScore, predictions: Sequence[Prediction]) -> ItemScore:
    """The score with its predictions' transcripts (multi-turn items) in ``detail["transcripts"]``, one
    per sample, so that the per-item page shows every stage whatever the evaluator keeps."""
    kept = [
        {"sample_index": p.sample_index, "stages": [stage.to_dict() for stage in p.transcript]}
        for p in predictions
        if p.transcript
    ]
    if not kept:
        return score
    return replace(score, detail={**score.detail, "transcripts": kept})


def read_batch(
    evaluator: Evaluator, items: ItemsFile, ids: Sequence[str], predictions: Mapping[str, Sequence[Prediction]]
) -> list[Item]:
    """The items ``ids`` of ``items``, each read without its shared part when its predictions do not
    need it (``Evaluator.needs_shared_part``), so that its fields are never decoded."""
    skipped = {item_id for item_id in ids if not evaluator.needs_shared_part(predictions.get(item_id, ()))}
    return items.get_many(ids, without_shared=skipped)


#: items the command line reads at a time (a worker's chunks are claimed 64 at a time too)
SCORE_BATCH = 64


def score_items(
    evaluator: Evaluator, items: Sequence[Item], predictions: Sequence[Prediction], *, concurrency: int = 2
) -> Iterator[ItemScore]:
    """Yield one ItemScore per item (in completion order), at most ``concurrency`` at a time. ``items``
    is read ``SCORE_BATCH`` at a time (an ``ItemsFile`` reads only those from disk)."""
    starts = iter(range(0, len(items), SCORE_BATCH))
    grouped = group_predictions(predictions)
    ids = items.ids() if isinstance(items, ItemsFile) else []

    def next_part() -> tuple[None, Sequence[Item]] | None:
        start = next(starts, None)
        if start is None:
            return None
        if isinstance(items, ItemsFile):
            return None, read_batch(evaluator, items, ids[start : start + SCORE_BATCH], grouped)
        return None, items[start : start + SCORE_BATCH]

    for event in score_batches(evaluator, grouped, next_part, concurrency=concurrency):
        if event.score is not None:
            yield event.score
