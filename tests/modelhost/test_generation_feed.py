"""The request feed of a generation pass (leaderboard.runs.generation.sending._Feed): the last answers of a
pass are stored at once, because the feed tells when every open request is answered and only waits
for storage; a held decision or an unanswered request keeps that from being true."""

from __future__ import annotations

import threading

from evaluators.core.types import ModelRequest
from leaderboard.runs.generation.sending import _Feed


def request(n: int) -> ModelRequest:
    return ModelRequest(item_id=f"item-{n}", messages=[{"role": "user", "content": str(n)}])


def test_only_answered_requests_open_means_store_now() -> None:
    feed = _Feed([request(n) for n in range(3)], threading.Event())
    drawn = iter(feed)
    assert not feed.only_answered_open(0)
    for _ in range(3):
        next(drawn)  # sent; answers come back one by one
    assert not feed.only_answered_open(2), "one request is still unanswered"
    assert feed.only_answered_open(3), "all three answered, none stored: nothing more can come"
    feed.hold()  # a multi-turn decision pending: it may send a follow-up
    assert not feed.only_answered_open(3)
    feed.close()
    for _ in range(3):
        feed.close()  # stored
    assert feed.only_answered_open(0)
    assert list(drawn) == []  # and the pass ends
