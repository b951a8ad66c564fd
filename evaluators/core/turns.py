"""Multi-turn items: the conversation a transcript stands for, the request that follows a stage, and the
checks a transcript from a predictions file must pass.

An evaluator with a ``Conversation`` (``Evaluator.generation().conversation``) is asked, after every
stored stage of a sample, what comes next; the generation job builds that request here, so every multi-turn benchmark
sends its conversations the same way and a transcript read back from the database or from a team's predictions
file is replayed identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluators.core.types import OUTPUT_ERROR_KINDS, FollowUp, ModelRequest, Stage

#: the most stages a transcript may hold (a predictions file's limit; evaluators ask for far fewer)
MAX_STAGES = 16
ROLES = ("system", "user", "assistant", "tool")
_STAGE_FIELDS = {"messages", "answer", "tool", "error_kind", "error", "finish_reason"}
#: a tool record's size limit in a predictions file (its JSON), so a transcript cannot carry a dataset
MAX_TOOL_CHARS = 256 * 1024


def conversation(transcript: Sequence[Stage]) -> list[dict[str, Any]]:
    """The chat messages of a transcript: each stage's messages followed by the model's answer."""
    messages: list[dict[str, Any]] = []
    for stage in transcript:
        messages.extend(stage.messages)
        messages.append({"role": "assistant", "content": stage.answer})
    return messages


def next_request(
    first: ModelRequest, transcript: Sequence[Stage], follow_up: FollowUp, sample_index: int
) -> ModelRequest:
    """The request for the stage after ``transcript`` of one sample: the conversation so far plus the
    follow-up's messages (only those for a ``fresh`` follow-up), with the first request's sampling
    settings (a seed moved by the sample, so that samples stay distinct)."""
    extra = dict(first.extra)
    if isinstance(extra.get("seed"), int):
        extra["seed"] = extra["seed"] + sample_index
    earlier = [] if follow_up.fresh else conversation(transcript)
    return ModelRequest(
        item_id=first.item_id,
        messages=earlier + list(follow_up.messages),
        n=1,
        temperature=first.temperature,
        top_p=first.top_p,
        max_tokens=follow_up.max_tokens or first.max_tokens,
        extra=extra,
        sample_index=sample_index,
        stage=len(transcript),
    )


def transcript_problems(value: Any, output: str) -> tuple[list[tuple[str, str]], tuple[Stage, ...]]:
    """Check a transcript as a predictions file gives it: a list of stages (``messages``, ``answer``,
    optional ``tool``, ``error_kind``, ``error``, ``finish_reason``) whose last answer is the line's
    ``output``. Returns (field, problem) pairs, and the stages when there is none."""
    if not isinstance(value, list) or not value:
        return [("transcript", "must be a non-empty list of stages")], ()
    if len(value) > MAX_STAGES:
        return [("transcript", f"has {len(value)} stages; at most {MAX_STAGES} are allowed")], ()
    problems: list[tuple[str, str]] = []
    for index, stage in enumerate(value):
        where = f"transcript[{index}]"
        if not isinstance(stage, dict):
            problems.append((where, "must be a JSON object"))
            continue
        for extra in sorted(set(stage) - _STAGE_FIELDS):
            problems.append((f"{where}.{extra}", f"unknown field (allowed: {', '.join(sorted(_STAGE_FIELDS))})"))
        messages = stage.get("messages")
        if not isinstance(messages, list) or not messages:
            problems.append((f"{where}.messages", "must be a non-empty list of messages"))
        else:
            for number, message in enumerate(messages):
                if not (
                    isinstance(message, dict)
                    and message.get("role") in ROLES
                    and isinstance(message.get("content"), str)
                ):
                    problems.append(
                        (
                            f"{where}.messages[{number}]",
                            f"must be an object with a role ({', '.join(ROLES)}) and a string content",
                        )
                    )
        if not isinstance(stage.get("answer"), str):
            problems.append((f"{where}.answer", "missing or not a string"))
        tool = stage.get("tool", {})
        if not isinstance(tool, dict):
            problems.append((f"{where}.tool", "must be a JSON object"))
        elif len(repr(tool)) > MAX_TOOL_CHARS:
            problems.append((f"{where}.tool", f"is larger than {MAX_TOOL_CHARS // 1024} KiB"))
        kind = stage.get("error_kind", "")
        if kind not in ("", *OUTPUT_ERROR_KINDS):
            problems.append((f"{where}.error_kind", f"must be empty or one of {', '.join(OUTPUT_ERROR_KINDS)}"))
        for text_field in ("error", "finish_reason"):
            if not isinstance(stage.get(text_field, ""), str):
                problems.append((f"{where}.{text_field}", "must be a string"))
    if problems:
        return problems, ()
    if value[-1]["answer"] != output:
        return [("output", "must equal the transcript's last answer")], ()
    return [], tuple(Stage.from_dict(stage) for stage in value)
