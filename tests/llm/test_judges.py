"""Judges against the scripted server: versioned prompts, stored raw answers, parsed choices and JSON,
bad answers retried then counted as fallbacks, outages raised as infrastructure errors, and batches
of calls about one answer asked at once with their shared context stored once."""

from __future__ import annotations

import pytest

from evaluators.core.types import InfrastructureError
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import (
    JUDGE_PROMPTS,
    RETRY_TEMPERATURE,
    Judge,
    JudgePrompt,
    JudgeUnavailable,
    judge_fallbacks,
    register_prompt,
)
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply

MATCH = {"question": "2+2?", "reference": "4", "answer": "four"}


def judge_for(server: OpenAIServer, version: str = "v1") -> Judge:
    client = ChatClient(Endpoint(server.base_url, "judge-model"), backoff_s=0.01, max_retries=1)
    return Judge(JudgeSpec("judge-model", "rev-abc", version), client)


def test_choice_answer_is_parsed_and_the_call_is_stored_whole():
    with OpenAIServer(lambda req: Reply(text="yes", usage=(30, 1))) as server:
        judge = judge_for(server)
        call = judge.ask("answer-match", MATCH, choices=["yes", "no"], max_tokens=3, seed=7)
    assert call.parsed == "yes" and call.raw_answer == "yes" and call.error == "" and not call.fallback
    assert call.judge == {
        "name": "judge-model",
        "revision": "rev-abc",
        "prompt_version": "v1",
        "label": "judge-model@rev-abc (prompt v1)",
        "prompt": "answer-match",
        "constrained": "server",
    }
    assert call.variables == MATCH and call.attempts == 1 and call.rejected == []
    assert call.usage == {"prompt_tokens": 30, "completion_tokens": 1}
    sent = server.requests[0]
    assert (
        sent["messages"] == judge.prompt("answer-match").render(MATCH)
        and "Reference answer:\n4" in sent["messages"][-1]["content"]
    )
    assert (sent["max_tokens"], sent["seed"], sent["temperature"]) == (3, 7, 0.0)
    assert call.to_dict()["raw_answer"] == "yes"


def test_json_answer_is_parsed():
    schema = {"type": "object", "required": ["score", "reason"]}
    answer = '{"score": 3, "reason": "partly right"}'
    with OpenAIServer(lambda req: Reply(text=answer)) as server:
        call = judge_for(server).ask(
            "rubric-score", {"rubric": "r", "question": "q", "answer": "a", "low": 1, "high": 5}, json_schema=schema
        )
    assert call.parsed == {"score": 3, "reason": "partly right"} and call.raw_answer == answer


def test_a_json_answer_failing_the_callers_check_is_asked_again():
    schema = {"type": "object", "required": ["scores"]}
    answers = iter(['{"scores": [1, 0]}', '{"scores": [1, 0, 1]}'])  # two criteria given where three were asked for
    three = lambda value: None if len(value["scores"]) == 3 else f"{len(value['scores'])} scores for 3 criteria"  # noqa: E731
    with OpenAIServer(lambda req: Reply(text=next(answers))) as server:
        call = judge_for(server).ask(
            "rubric-score",
            {"rubric": "r", "question": "q", "answer": "a", "low": 1, "high": 5},
            json_schema=schema,
            check=three,
        )
    assert call.parsed == {"scores": [1, 0, 1]} and call.attempts == 2 and "2 scores for 3 criteria" in call.rejected[0]


@pytest.mark.parametrize(
    "reply",
    [
        Reply(status=500, error={"message": "judge down"}),  # server errors after the client's retries
        Reply(status=401, error={"message": "bad key"}),  # a wrong key or model is the configuration's fault
        Reply(status=404, error={"message": "no such model"}),
    ],
)
def test_an_unreachable_or_broken_judge_raises_an_infrastructure_error_not_a_bad_answer(reply):
    with (
        OpenAIServer(lambda req: reply) as server,
        pytest.raises(JudgeUnavailable, match="judge-model@rev-abc") as raised,
    ):
        judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"])
    assert isinstance(raised.value, InfrastructureError) and str(reply.status) in str(raised.value)


def test_a_judge_that_times_out_is_unavailable():
    with OpenAIServer(lambda req: Reply(text="yes", delay_s=2.0)) as server:
        client = ChatClient(Endpoint(server.base_url, "judge-model"), backoff_s=0.01, max_retries=0, timeout_s=0.3)
        with pytest.raises(JudgeUnavailable, match="timeout"):
            Judge(JudgeSpec("judge-model", "rev-abc", "v1"), client).ask("answer-match", MATCH, choices=["yes", "no"])
    with pytest.raises(JudgeUnavailable, match="endpoint"):  # nothing listens there any more
        judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"])


def test_an_unmatched_choice_is_retried_warmer_with_a_new_seed_then_a_malformed_fallback():
    with OpenAIServer(lambda req: Reply(text="probably")) as server:
        call = judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"], seed=10)
    assert call.parsed is None and call.fallback and call.error_kind == "malformed" and call.attempts == 2
    assert len(call.rejected) == 2 and all("probably" in r for r in call.rejected)
    sent = [(r.get("seed"), r["temperature"]) for r in server.requests]
    assert (10, 0.0) in sent and (11, RETRY_TEMPERATURE) in sent  # the retry is not a greedy repeat
    # the first try (its guidance ignored), then the judge's warmer retry: the client never repeats a greedy
    # answer on its own under the judge's retry (it once asked 7 times for one malformed answer)
    assert len(server.requests) == 2, sent


@pytest.mark.parametrize(
    "answer, parsed, constrained",
    [
        ("The party stance is 9.", "9", "extracted"),  # a chatty judge without guided decoding (SmolLM2)
        (" 4\n", "4", "server"),  # an exact choice: taken as the server's guided answer
        ("7 out of 9", None, ""),  # two digits: ambiguous, so unusable
        ("97", None, ""),  # not a standalone digit
    ],
)
def test_an_unguided_answer_holding_exactly_one_choice_gives_that_choice(answer, parsed, constrained):
    digits = [str(d) for d in range(10)]
    with OpenAIServer(lambda req: Reply(text=answer)) as server:
        call = judge_for(server).ask("answer-match", MATCH, choices=digits)
    assert call.parsed == parsed and call.judge.get("constrained", "") == constrained
    assert call.fallback == (parsed is None) and call.raw_answer == (
        "" if parsed is None else answer
    )  # kept as written


def test_a_usable_retry_is_kept_with_the_rejected_answer():
    answers = iter(["maybe"] + ["no"] * 10)  # the first try fails (its guidance ignored)
    with OpenAIServer(lambda req: Reply(text=next(answers))) as server:
        call = judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"])
    assert (
        (call.parsed, call.error_kind, call.attempts) == ("no", "", 2) and call.rejected and "maybe" in call.rejected[0]
    )


def test_a_request_the_judge_refuses_for_its_content_is_a_refused_fallback():
    with OpenAIServer(lambda req: Reply(status=400, error={"message": "prompt is longer than the context"})) as server:
        call = judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"])
    assert call.error_kind == "refused" and call.fallback and "context" in call.error
    assert (
        server.request_count == 2
    )  # with guided decoding, then checked (a 400 may refuse the guidance); no judge retry


def test_ask_many_stores_the_shared_context_once_and_bounds_its_concurrency():
    def slow_grade(request):
        return Reply(text="yes" if "four" in request["messages"][-1]["content"] else "no", delay_s=0.2)

    shared = {"question": "2+2?", "reference": "4"}
    each = [{"answer": a} for a in ("four", "five", "4.0", "four!", "IV", "zero")]
    with OpenAIServer(slow_grade) as server:
        client = ChatClient(Endpoint(server.base_url, "judge-model"), max_concurrency=8)
        judge = Judge(JudgeSpec("judge-model", "rev-abc", "v1"), client, concurrency=3)
        batch = judge.ask_many("answer-match", shared=shared, each=each, choices=["yes", "no"], seed=100)
        judge.close()
    assert [c.parsed for c in batch.calls] == ["yes", "no", "no", "yes", "no", "no"]  # in the order asked
    assert server.max_in_flight == 3  # all at once, within the judge's own bound
    assert sorted(r["seed"] for r in server.requests) == [100, 102, 104, 106, 108, 110]  # a seed per call
    stored = batch.to_dict()
    assert stored["shared"] == shared and stored["prompt"] == "answer-match" and stored["prompt_version"] == "v1"
    assert [c["variables"] for c in stored["calls"]] == each and all("judge" not in c for c in stored["calls"])
    assert judge_fallbacks({"judgements": [stored]}) == (0, 6)


def test_ask_many_raises_when_the_judge_goes_down_mid_batch():
    count = iter(range(100))

    def flaky(request):
        return Reply(text="yes") if next(count) < 2 else Reply(status=503, error="down")

    with OpenAIServer(flaky) as server, pytest.raises(JudgeUnavailable):
        judge_for(server).ask_many(
            "answer-match",
            shared={"question": "q", "reference": "r"},
            each=[{"answer": str(i)} for i in range(5)],
            choices=["yes", "no"],
        )


def test_prompt_versions_are_pinned_and_immutable():
    with OpenAIServer() as server:
        with pytest.raises(KeyError, match=r"no judge prompt 'answer-match' at version 'v9'.*v1"):
            judge_for(server, "v9").ask("answer-match", MATCH)
        with pytest.raises(KeyError, match="needs the variable 'reference'"):
            judge_for(server).ask("answer-match", {"question": "q", "answer": "a"})
    with pytest.raises(ValueError, match="needs a new version"):
        register_prompt(JudgePrompt("answer-match", "v1", user="changed text"))
    assert ("arena-intent", "v1") in JUDGE_PROMPTS


def test_once_the_judge_is_found_down_its_other_calls_give_up_at_once_instead_of_retrying_each():
    with OpenAIServer(lambda req: Reply(status=503, error="down")) as server:
        judge = judge_for(server)
        with pytest.raises(JudgeUnavailable, match="503"):
            judge.ask("answer-match", MATCH, choices=["yes", "no"])
        asked = server.request_count
        with pytest.raises(JudgeUnavailable, match="503"):  # the same outage, named, without asking again
            judge.ask_many(
                "answer-match",
                shared={"question": "q", "reference": "r"},
                each=[{"answer": str(i)} for i in range(5)],
                choices=["yes", "no"],
            )
        assert server.request_count == asked == 2  # the client's try and its one retry, for the first call only
    with OpenAIServer(lambda req: Reply(text="yes")) as server:  # the retried run builds a new judge
        assert judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"]).parsed == "yes"


@pytest.mark.parametrize(
    "unusable, retries, requests, parsed",
    [
        (0, 1, 1, "yes"),  # a usable first answer: one request
        (1, 1, 2, "yes"),  # one unusable answer, one retry: two requests
        (2, 1, 2, None),  # still unusable after the retry: a fallback after 1 + retries requests, never more
        (3, 10, 4, "yes"),  # PoliCon's released protocol (10 retries): one request per retry taken
        (11, 10, 11, None),
    ],
)
def test_the_judge_owns_its_retries_one_request_per_try(unusable, retries, requests, parsed):
    """A judge over HTTP that answers unusable text ``unusable`` times, then a usable answer: every try of
    the judge is exactly one request (the client neither repeats an answer nor probes again), so an
    unusable answer costs 1 + retries requests at most, whatever the server does with guided decoding."""
    answered = iter(range(100))

    def judge_server(request):
        return Reply(text="I am not sure." if next(answered) < unusable else "yes")

    with OpenAIServer(judge_server) as server:
        judge = judge_for(server)
        call = judge.ask("answer-match", MATCH, choices=["yes", "no"], retries=retries, seed=0)
        assert server.request_count == requests == call.attempts
        assert (
            call.parsed == parsed
            and call.fallback == (parsed is None)
            and len(call.rejected) == min(unusable, 1 + retries)
        )
        second = judge.ask("answer-match", MATCH, choices=["yes", "no"], retries=retries, seed=0)
        assert server.request_count == requests + second.attempts == requests + 1
        if unusable:  # later calls (the server found not to guide) cost one request a try too, instruction included
            assert "exactly one of these options" in server.requests[-1]["messages"][-1]["content"]
            assert all("guided_choice" not in r for r in server.requests[requests:])


def test_a_judge_server_that_guides_needs_no_retry():
    """A server with guided decoding (vLLM, which serves the demo judge) answers a choice: one request."""

    def guided(request):
        return Reply(text=request["guided_choice"][0] if "guided_choice" in request else "Well, maybe.")

    with OpenAIServer(guided) as server:
        calls = [judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"], retries=10) for _ in range(3)]
    assert [c.parsed for c in calls] == ["yes"] * 3 and server.request_count == 3
    assert {c.judge["constrained"] for c in calls} == {"server"}
