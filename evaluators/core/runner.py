"""Scoring predictions with bounded concurrency: the one path shared by workers and the CLI."""
from __future__ import annotations

from collections import defaultdict
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Collection, Iterator, Sequence

from evaluators.core.protocol import Evaluator
from evaluators.core.types import Item, ItemScore, Prediction


def group_predictions(predictions: Sequence[Prediction]) -> dict[str, list[Prediction]]:
    grouped: dict[str, list[Prediction]] = defaultdict(list)
    for prediction in predictions:
        grouped[prediction.item_id].append(prediction)
    for values in grouped.values():
        values.sort(key=lambda p: p.sample_index)
    return grouped


def score_items(evaluator: Evaluator, items: Sequence[Item], predictions: Sequence[Prediction], *,
                concurrency: int = 2, skip: Collection[str] = ()) -> Iterator[ItemScore]:
    """Yield one ItemScore per item (in completion order), at most ``concurrency`` at a time.

    ``skip`` lists item ids already scored (a resumed run) so no item is scored twice.
    Items without predictions are skipped: partial files are checked before this point.
    """
    grouped = group_predictions(predictions)
    todo = [item for item in items if item.id not in skip and item.id in grouped]
    if concurrency <= 1:
        for item in todo:
            yield evaluator.score_item(item, grouped[item.id])
        return
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="score") as pool:
        pending: set[Future[ItemScore]] = set()
        queue = iter(todo)
        for item in queue:
            pending.add(pool.submit(evaluator.score_item, item, grouped[item.id]))
            if len(pending) >= concurrency * 2:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(evaluator.score_item, nxt, grouped[nxt.id]))
