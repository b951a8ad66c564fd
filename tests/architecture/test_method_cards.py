"""Every benchmark states its protocol beside the authors': a method card with the elements the
guide asks for (how the headline is aggregated, what was counted, the judge where one scores), each
element once, each deviation with its reason (ProtocolRow refuses one without)."""

from __future__ import annotations

import pytest

from evaluators.core import BENCHMARKS, evaluator_for


@pytest.mark.parametrize("key", [row.key for row in BENCHMARKS])
def test_every_benchmark_has_a_method_card_covering_its_protocol(key: str) -> None:
    evaluator = evaluator_for(key)
    card = evaluator.presentation().method_card()
    elements = [row.element.lower() for row in card]
    assert len(card) >= 8, f"{key}: a card of {len(card)} rows cannot cover prompts, settings, aggregation and counts"
    assert len(set(elements)) == len(elements), f"{key}: an element listed twice"
    assert any("headline" in e or "aggregation" in e for e in elements), (
        f"{key}: no row says how the headline is aggregated"
    )
    assert any(word in e for e in elements for word in ("count", "tasks", "problems")), (
        f"{key}: no row gives the counts"
    )
    assert any("prompt" in e or "question" in e for e in elements), f"{key}: no row on the prompts"
    if evaluator.judging():
        assert any("judge" in e for e in elements), f"{key} is judged, and its card says nothing of the judge"
        # what the client appends to a judge prompt where the server cannot constrain the answer, word for word
        [answer_format] = [row for row in card if row.element == "Judge's answer format"]
        assert "the client appends this paragraph" in answer_format.here and '"Answer with ' in answer_format.here
    assert all(row.why for row in card if row.deviates)
