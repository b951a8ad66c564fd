"""Checks of an evaluator's aggregation (``Evaluator.aggregation``) against its ``aggregate``: the same
metrics whatever order the scores are added in, and the traced peak of feeding it N scores against 10N
(the scores made one at a time, so only what the aggregation keeps can grow)."""

from __future__ import annotations

import random
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar
from unittest import mock

from evaluators.core import stats
from evaluators.core.evaluator import Aggregation, Evaluator, KeptScores, ScoredByJudge
from evaluators.core.types import ItemScore, MetricValue
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer

J = TypeVar("J", bound=ScoredByJudge)

#: the text a synthetic score carries per sample, judge call or answer: about 4 kB, its own per item
BULK = 4000


def bulk(item_id: str) -> str:
    """A long text of its own for one item (never a shared constant, so keeping it costs memory)."""
    return (item_id + " ") * (BULK // (len(item_id) + 1))


def streamed(aggregation: Aggregation, scores: Sequence[ItemScore]) -> list[MetricValue]:
    for score in scores:
        aggregation.add(score)
    return aggregation.metrics()


def assert_same_as_aggregate(evaluator: Evaluator, scores: Sequence[ItemScore], *, seed: int) -> None:
    """The evaluator's aggregation, fed ``scores`` shuffled, gives exactly ``aggregate``'s metrics (the
    same floats, compared by repr so that NaN equals NaN): with the dataset's order (``scores``' order,
    as the command line passes it) the scores are aggregated in that order; without one (a worker's), in
    the order added."""
    shuffled = list(scores)
    random.Random(seed).shuffle(shuffled)
    assert [s.item_id for s in shuffled] != [s.item_id for s in scores]
    expected = evaluator.aggregate(list(scores), seed=seed)
    assert len(expected) > 3
    assert repr(streamed(evaluator.aggregation(seed=seed, order=[s.item_id for s in scores]), shuffled)) == repr(
        expected
    )
    assert repr(streamed(evaluator.aggregation(seed=seed), shuffled)) == repr(evaluator.aggregate(shuffled, seed=seed))


def growth_per_item(make: Callable[[], Aggregation], scores: Callable[[int], Iterator[ItemScore]], n: int) -> float:
    """Bytes a score grows the traced peak of an aggregation by (adding the scores and computing the
    metrics), from ``n`` scores to ``10 n``, after a first run of ``n`` (what is allocated once, such as
    a lazy import, would count against ``n``). The bootstrap draws 4,096 at a time here, so that its
    block is at its largest at both sizes: at 2^17 draws, 1 MB (``evaluators.core.stats.DRAW_BLOCK``),
    it would still be growing to that from ``n`` to ``10 n`` clusters."""
    peaks = []
    with mock.patch.object(stats, "DRAW_BLOCK", 1 << 12):
        for count in (n, n, 10 * n):
            aggregation = make()
            tracemalloc.start()
            try:
                tracemalloc.reset_peak()
                for score in scores(count):
                    aggregation.add(score)
                assert aggregation.metrics()
                peaks.append(tracemalloc.get_traced_memory()[1])
            finally:
                tracemalloc.stop()
    return (peaks[2] - peaks[1]) / (9 * n)


def assert_flat(evaluator: Evaluator, scores: Callable[[int], Iterator[ItemScore]], n: int = 300) -> float:
    """From ``n`` to ``10 n`` synthetic scores (each with about ``BULK`` bytes of text per sample or judge
    call) the evaluator's aggregation grows the traced peak by under 1.5 kB a score (the ItemScore kept,
    its scores and id, and what ``aggregate`` builds per score: 0.6-1.1 kB), where keeping every score
    whole (``KeptScores`` without ``keep_detail``) grows it by over 4 kB a score: the check
    tells them apart."""
    grown = growth_per_item(lambda: evaluator.aggregation(seed=1), scores, n)
    whole = growth_per_item(lambda: KeptScores(evaluator, seed=1, order=None), scores, n)
    assert grown < 1500 < 4000 < whole, (grown, whole)
    return grown


def with_scripted_judge(evaluator: J, server: OpenAIServer) -> J:
    """``evaluator`` asking the scripted server as its judge."""
    client = ChatClient(Endpoint(server.base_url, "judge"), max_concurrency=8, backoff_s=0.01, max_retries=1)
    return evaluator.with_judge(Judge(JudgeSpec("judge", "r1", "v1"), client, concurrency=8))
