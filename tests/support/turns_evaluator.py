"""A two-turn Multi-LCB for tests: the multi-turn generation plumbing without a sandboxed tool.

After the model's first answer the platform "runs a tool" (it counts the answer's characters), tells
the model the result and asks for its final answer, which is scored as Multi-LCB scores any answer.
Registered over the ``multi-lcb`` key (``register`` in-process, ``LEADERBOARD_EXTRA_EVALUATORS`` in a
worker) so that the mini release and the multi_lcb fixture serve it as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluators.core.evaluator import Conversation, Generation
from evaluators.core.types import FollowUp, Item, Stage
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator

DOTTED_PATH = "tests.support.turns_evaluator:TwoTurnMultiLCB"
#: what the follow-up turn says, so that scripted servers can tell the stages apart
FOLLOW_UP_MARK = "The length tool says your first answer has"


class LengthTool(Conversation):
    """Two turns: the platform counts the first answer's characters and asks for the final answer."""

    transcript_reason = "This benchmark's answers come from a conversation with the platform's tool."

    def max_stages(self, settings: dict[str, Any]) -> int:
        return 2

    def follow_up(
        self, item: Item, transcript: Sequence[Stage], sample_index: int, settings: dict[str, Any]
    ) -> FollowUp | None:
        if len(transcript) >= 2:
            return None
        length = len(transcript[-1].answer)
        return FollowUp(
            messages=[{"role": "user", "content": f"{FOLLOW_UP_MARK} {length} characters. Give your final answer."}],
            tool={"name": "length", "output": str(length), "error_kind": transcript[-1].error_kind},
        )


class TwoTurnMultiLCB(MultiLCBEvaluator):
    def generation(self) -> Generation:
        return Generation(conversation=LengthTool())
