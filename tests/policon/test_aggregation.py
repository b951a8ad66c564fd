"""PoliCon's aggregation keeps what its metrics read (ids, slices, scores, each judge call's fallback),
never the samples or the judge's texts: the same metrics as ``aggregate`` in any order of scores, and a
peak that grows by a few hundred bytes a score, not by what each score carries."""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from evaluators.core.types import ItemScore, Prediction
from evaluators.llm.judges import FALLBACK_METRIC
from evaluators.policon.evaluator import PoliConEvaluator
from evaluators.policon.prompts import OPENING
from tests.support.aggregation import assert_flat, assert_same_as_aggregate, bulk, streamed, with_scripted_judge
from tests.support.openai_server import OpenAIServer, Reply

EVALUATOR = PoliConEvaluator()
ITEMS = list(EVALUATOR.import_release(EVALUATOR.presentation().sample_dataset()))


def vote(request: dict[str, Any]) -> Reply:
    """A digit that depends on the party and the resolution; about one answer in seven not a digit (asked
    again, then a fallback vote)."""
    prompt = request["messages"][-1]["content"]
    party = re.search(r"(?:Your party|\nParty): (.*)\n", prompt).group(1)
    resolution = re.search(r"resolved [^\n]*", prompt).group(0)
    h = zlib.crc32(f"{party}|{resolution}".encode())
    return Reply(text="maybe" if h % 7 == 0 else str(h % 10))


def test_the_sample_scored_by_a_judge_gives_the_same_metrics_streamed_in_any_order():
    with OpenAIServer(vote) as server:
        judged = with_scripted_judge(EVALUATOR, server)
        scores = [
            judged.score_item(
                item,
                [Prediction(item.id, f"{OPENING} resolved {item.id} {k}.", sample_index=k) for k in range(1 + n % 2)],
            )
            for n, item in enumerate(ITEMS)
        ]
    scores[7] = ItemScore(scores[7].item_id, scores[7].slices, {}, error="the judge's answer could not be read")
    fallbacks = {m.key: m for m in EVALUATOR.aggregate(scores) if not m.slice}[FALLBACK_METRIC]
    assert 0 < fallbacks.value < 1  # some votes fell back: what the aggregation keeps of the judgements counts
    for seed in (0, 7):
        assert_same_as_aggregate(EVALUATOR, scores, seed=seed)


def hand(item_id: str, objective: str, value: float, kinds: list[str]) -> ItemScore:
    parties, topic = item_id.split("/")[:2]
    key = {"sm": "sm_pass", "util": "util"}[objective]
    return ItemScore(
        item_id,
        {"parties": parties, "topic": topic, "objective": objective},
        {key: value},
        {
            "samples": [{"verdict": "scored", "reason": "long"}],
            "judgements": [
                {"shared": {"background": "..."}, "calls": [{"parsed": "5", "error_kind": k} for k in kinds]}
            ],
        },
    )


def test_a_hand_computed_run():
    # two tasks of two parties: SM passes in one; Util 6.5 and 3; one of the eight judge calls fell back
    scores = [
        hand("2/energy/1/sm", "sm", 1.0, ["", ""]),
        hand("2/energy/1/util", "util", 6.5, ["", "malformed"]),
        hand("2/water/2/sm", "sm", 0.0, ["", ""]),
        hand("2/water/2/util", "util", 3.0, ["", ""]),
    ]
    metrics = {(m.key, tuple(m.slice.items())): m for m in streamed(EVALUATOR.aggregation(seed=3), scores[::-1])}
    assert (metrics[("sm_pass", ())].value, metrics[("sm_pass", ())].n) == (0.5, 2)
    assert metrics[("util", ())].value == pytest.approx((6.5 + 3.0) / 2)
    assert metrics[("util", (("topic", "water"),))].value == 3.0
    assert (metrics[(FALLBACK_METRIC, ())].value, metrics[(FALLBACK_METRIC, ())].n) == (1 / 8, 8)


def synthetic(count: int) -> Iterator[ItemScore]:
    """PoliCon-shaped scores: five objectives a task, a few parties, each sample and judge call with a
    long text of its own."""
    objectives = {
        "sm": "sm_pass",
        "two_thirds": "two_thirds_pass",
        "veto": "veto_pass",
        "rawls": "rawls",
        "util": "util",
    }
    for n in range(count):
        task, which = divmod(n, 5)
        objective = list(objectives)[which]
        parties = (2, 4, 6)[task % 3]
        item_id = f"{parties}/topic-{task % 9}/{task}/{objective}"
        text = bulk(item_id)
        calls = [
            {
                "variables": {"party": f"P{k}"},
                "answer": text[:200],
                "parsed": "5",
                "error_kind": "malformed" if n % 13 == k else "",
            }
            for k in range(parties)
        ]
        yield ItemScore(
            item_id,
            {"parties": str(parties), "topic": f"topic-{task % 9}", "objective": objective},
            {objectives[objective]: float(n % 2) if which < 3 else float(n % 10)},
            {
                "samples": [{"verdict": "pass", "reason": text}],
                "judgements": [{"shared": {"resolution": text}, "calls": calls}],
            },
        )


def test_scoring_ten_times_the_items_holds_a_few_hundred_bytes_more_a_score():
    assert_flat(EVALUATOR, synthetic)
