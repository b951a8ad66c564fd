"""Citation attribution (evaluators/arena/attribution.py): the word-overlap heuristic on hand-written
answers and search traces, labels worked out by hand; the judge path against a scripted judge over HTTP
(a supported, a contradicting and an irrelevant citation labelled as the judge says, every call kept),
and its fallbacks when the judge's answer is unusable or the judge is down; the Wilson interval."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from evaluators.arena import attribution
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Answer, Endpoint, JudgeSpec, SearchCall, Source
from tests.support.openai_server import OpenAIServer, Reply

# A hand-written answer over a hand-written trace. The snippets are what the search returned.
PARIS = "Paris is the capital of France, with about 2.1 million inhabitants in 2023."
EIFFEL = "The Eiffel Tower was completed in 1889 for the World's Fair."
RECIPE = "A classic ratatouille needs aubergine, courgette and tomato."
TEXT = (
    "Paris is the capital of France [1]. It has about 2.1 million inhabitants [1][2].\n"
    "- The Eiffel Tower was finished in **1889**.[2]\n"
    "France borders Germany and Spain [3]. No citation here. Marker for a source we lack [9]."
)


def _answer() -> Answer:
    sources = [
        Source(1, "https://en.wikipedia.org/wiki/Paris", "Paris", PARIS),
        Source(2, "https://www.toureiffel.paris/en", "Eiffel Tower", ""),
        Source(3, "https://cooking.example.org/ratatouille", "Ratatouille", RECIPE),
    ]
    # source 2's own snippet is empty: its text is the search result with the same URL
    searches = [
        SearchCall(
            "local", "eiffel tower", [Source(1, "https://www.toureiffel.paris/en", "Eiffel Tower", EIFFEL)], 0.01
        )
    ]
    return Answer(
        text=TEXT,
        sources=sources,
        searches=searches,
        citation_style="standardized",
        finish_reason="stop",
        latency_s=0.1,
    )


def test_claims_are_sentences_with_markers_and_a_trailing_marker_belongs_to_the_sentence_before() -> None:
    claims = attribution.split_claims(TEXT)
    assert claims == [
        attribution.Claim("Paris is the capital of France.", (1,)),
        attribution.Claim("It has about 2.1 million inhabitants.", (1, 2)),
        attribution.Claim("The Eiffel Tower was finished in 1889.", (2,)),
        attribution.Claim("France borders Germany and Spain.", (3,)),
        attribution.Claim("Marker for a source we lack.", (9,)),
    ]


def test_the_cited_text_comes_from_the_trace() -> None:
    texts = attribution.cited_texts(_answer())
    assert texts[1] == ("https://en.wikipedia.org/wiki/Paris", f"Paris\n{PARIS}")
    assert texts[2] == ("https://www.toureiffel.paris/en", f"Eiffel Tower\n{EIFFEL}")


def test_the_overlap_heuristic_labels_each_pair_as_worked_out_by_hand() -> None:
    found = attribution.attribute(_answer())
    assert found.method == attribution.HEURISTIC_METHOD and "crude" in found.method
    got = [(p.claim.split()[0], p.number, p.label) for p in found.pairs]
    # By hand, content words (stop words out, numbers kept) against each cited text:
    # "paris capital france" all in [1] -> supported; "about 2 1 million inhabitants": "about" is a stop
    # word, so [2,1,million,inhabitants] all in [1] (4/4) -> supported, and in [2] none (0/4) -> irrelevant;
    # "eiffel tower finished 1889": 3/4 in [2] ("finished" is not; it says completed) -> supported at 75%;
    # "france borders germany spain": none in the recipe -> irrelevant; [9] names no source -> no pair.
    assert got == [
        ("Paris", 1, "supported"),
        ("It", 1, "supported"),
        ("It", 2, "irrelevant"),
        ("The", 2, "supported"),
        ("France", 3, "irrelevant"),
    ]
    assert found.pairs[3].reason == "75% of the claim's content words are in the cited text"
    assert found.counts() == {"supported": 3, "irrelevant": 2, "contradicting": 0, "unchecked": 0, "failed": 0}


def test_a_paraphrase_reads_as_irrelevant_and_a_negation_as_supported_which_is_why_it_is_crude() -> None:
    assert attribution.overlap_label("The tower opened in the nineteenth century", EIFFEL)[0] == "irrelevant"
    assert attribution.overlap_label("The Eiffel Tower was not completed in 1889", EIFFEL)[0] == "supported"
    assert attribution.overlap_label("Anything at all", "   ")[0] == "unchecked"


# --- the judge -------------------------------------------------------------------------------------

CLAIMS = {
    "claims": [
        {"claim": "Paris is the capital of France.", "citations": [1]},
        {"claim": "The Eiffel Tower was completed in 1901.", "citations": [2]},
        {"claim": "France borders Germany and Spain.", "citations": [3, 9]},
    ]
}
#: what the scripted judge answers for a cited text it is shown (keyed by a word of that text)
VERDICTS = {"capital": "support", "1889": "contradict", "ratatouille": "irrelevant"}


def scripted(request: dict[str, Any]) -> Reply:
    text = request["messages"][-1]["content"]
    if text.startswith("Answer (citation markers"):
        return Reply(text=json.dumps(CLAIMS))
    source = text.split("Statements citing it:")[0]
    word = next(w for w in VERDICTS if w in source.lower())
    count = len(re.findall(r"^\d+\. ", text.split("Statements citing it:")[1], re.M))
    return Reply(text=json.dumps({"verdicts": [{"reasoning": f"the text on {word}", "label": VERDICTS[word]}] * count}))


def _judge(server: OpenAIServer) -> Judge:
    return Judge(
        JudgeSpec("attr-judge", "rev1", "v7"), ChatClient(Endpoint(server.base_url, "judge"), max_retries=0), retries=1
    )


def test_the_judge_labels_a_supported_a_contradicting_and_an_irrelevant_citation() -> None:
    with OpenAIServer(scripted) as server:
        found = attribution.attribute(_answer(), judge=_judge(server))
        requests = list(server.requests)
    assert [(p.number, p.label) for p in found.pairs] == [(1, "supported"), (2, "contradicting"), (3, "irrelevant")]
    assert (
        found.pairs[1].claim == "The Eiffel Tower was completed in 1901."
        and found.pairs[1].reason == "the text on 1889"
    )
    assert found.method.startswith("judge attr-judge@rev1") and "arena-attribution@v1" in found.method
    # one call splits the claims, then one per cited source with text (3 sources; [9] is none of the answer's)
    assert len(requests) == 4 and "$" not in json.dumps(requests)
    assert any(
        EIFFEL in r["messages"][-1]["content"]
        and "1. The Eiffel Tower was completed in 1901." in r["messages"][-1]["content"]
        for r in requests
    )  # the source's text from the trace, with the claims citing it
    calls = found.judge_calls
    assert calls[0]["raw_answer"] == json.dumps(CLAIMS)  # the raw answers are kept
    assert sum(len(batch["calls"]) for batch in calls[1:]) == 3


def test_a_malformed_verdict_marks_that_sources_pairs_failed_and_counts_them_in_no_share() -> None:
    """The release labels a check that never parsed "Failed" and counts it nowhere; the word overlap
    (which would have called this pair supported) is not asked."""

    def broken(request: dict[str, Any]) -> Reply:
        text = request["messages"][-1]["content"]
        if text.startswith("Answer (citation markers"):
            return Reply(text=json.dumps(CLAIMS))
        if "capital" in text.split("Statements citing it:")[0].lower():
            return Reply(text='{"verdicts": []}')  # the wrong number of verdicts, every time
        return scripted(request)

    with OpenAIServer(broken) as server:
        found = attribution.attribute(_answer(), judge=_judge(server))
    first = found.pairs[0]
    assert first.label == "failed" and first.reason.startswith("the judge's answer was unusable (malformed")
    assert [p.label for p in found.pairs[1:]] == ["contradicting", "irrelevant"]
    assert found.counts() == {"supported": 0, "irrelevant": 1, "contradicting": 1, "unchecked": 0, "failed": 1}


def test_an_unusable_claims_answer_splits_by_sentence_and_a_judge_that_is_down_leaves_the_heuristic() -> None:
    def no_claims(request: dict[str, Any]) -> Reply:
        if request["messages"][-1]["content"].startswith("Answer (citation markers"):
            return Reply(text="not json at all")
        return scripted(request)

    with OpenAIServer(no_claims) as server:
        found = attribution.attribute(_answer(), judge=_judge(server))
    assert "claims split by sentence" in found.method and len(found.pairs) == 5
    with OpenAIServer(lambda request: Reply(status=503, text="down")) as server:
        found = attribution.attribute(_answer(), judge=_judge(server))
    assert found.method.startswith(attribution.HEURISTIC_METHOD) and "failed (unavailable)" in found.method
    assert [p.label for p in found.pairs] == ["supported", "supported", "irrelevant", "supported", "irrelevant"]


def test_wilson_interval_by_hand() -> None:
    # k=8 of n=10: p=.8, z^2=3.8415; centre (.8+.19207)/1.38415 = .71673; half 1.96*sqrt(.016+.0096037)/1.38415 = .22657
    low, high = attribution.wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-3) and high == pytest.approx(0.9433, abs=1e-3)
    assert attribution.wilson(0, 0) == (0.0, 1.0) and attribution.wilson(0, 5)[0] == 0.0
