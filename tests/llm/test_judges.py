"""Judges against the scripted server: versioned prompts, stored raw answers, parsed choices and JSON,
and model failures kept in the call instead of raised."""
from __future__ import annotations

import pytest

from evaluators.llm.client import ChatClient
from evaluators.llm.judges import JUDGE_PROMPTS, Judge, JudgePrompt, register_prompt
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply

MATCH = {"question": "2+2?", "reference": "4", "answer": "four"}


def judge_for(server: OpenAIServer, version: str = "v1") -> Judge:
    client = ChatClient(Endpoint(server.base_url, "judge-model"), backoff_s=0.01, max_retries=1)
    return Judge(JudgeSpec("judge-model", "rev-abc", version), client)


def test_choice_answer_is_parsed_and_the_call_is_stored_whole():
    with OpenAIServer(lambda req: Reply(text="yes", usage=(30, 1))) as server:
        call = judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"])
    assert call.parsed == "yes" and call.raw_answer == "yes" and call.error == ""
    assert call.judge == {"name": "judge-model", "revision": "rev-abc", "prompt_version": "v1",
                          "label": "judge-model@rev-abc (prompt v1)", "prompt": "answer-match", "constrained": "server"}
    assert "Reference answer:\n4" in call.messages[-1]["content"] and call.messages[0]["role"] == "system"
    assert call.usage == {"prompt_tokens": 30, "completion_tokens": 1}
    assert server.requests[0]["messages"] == call.messages
    assert call.to_dict()["raw_answer"] == "yes"


def test_json_answer_is_parsed():
    schema = {"type": "object", "required": ["score", "reason"]}
    answer = '{"score": 3, "reason": "partly right"}'
    with OpenAIServer(lambda req: Reply(text=answer)) as server:
        call = judge_for(server).ask("rubric-score", {"rubric": "r", "question": "q", "answer": "a", "low": 1, "high": 5},
                                     json_schema=schema)
    assert call.parsed == {"score": 3, "reason": "partly right"} and call.raw_answer == answer


def test_model_failure_is_in_the_call_not_raised():
    with OpenAIServer(lambda req: Reply(status=500, error={"message": "judge down"})) as server:
        call = judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"])
    assert call.parsed is None and call.raw_answer == "" and call.error.startswith("endpoint:")
    assert "judge down" in call.error


def test_unmatched_choice_is_an_output_error():
    with OpenAIServer(lambda req: Reply(text="probably")) as server:
        call = judge_for(server).ask("answer-match", MATCH, choices=["yes", "no"])
    assert call.parsed is None and call.error.startswith("output:")


def test_prompt_versions_are_pinned_and_immutable():
    with OpenAIServer() as server:
        with pytest.raises(KeyError, match="no judge prompt 'answer-match' at version 'v9'.*v1"):
            judge_for(server, "v9").ask("answer-match", MATCH)
        with pytest.raises(KeyError, match="needs the variable 'reference'"):
            judge_for(server).ask("answer-match", {"question": "q", "answer": "a"})
    with pytest.raises(ValueError, match="needs a new version"):
        register_prompt(JudgePrompt("answer-match", "v1", user="changed text"))
    assert ("arena-intent", "v1") in JUDGE_PROMPTS
