"""The periodic pass the beat schedules: turns whose message was lost, stale answers, anomalous voters, prompt floods,
abandoned battles, then ratings."""

from __future__ import annotations

from leaderboard.arena.services.battles import battle_abandon_stale, turns_fail_stale, turns_resend_unclaimed
from leaderboard.arena.services.ratings import ratings_compute
from leaderboard.arena.services.votes import prompts_flag_floods, voters_flag_anomalous


def arena_maintain() -> dict[str, int]:
    """The periodic pass: anomalous voters, prompt floods, stale battles, then ratings (the task then computes the
    figures published with them, ``arena.published``, so that no page has to: they read the services, which
    therefore do not call them)."""
    return {
        "resent_turns": turns_resend_unclaimed(),
        "stale_answers": turns_fail_stale(),
        "anomalous": voters_flag_anomalous(),
        "floods": prompts_flag_floods(),
        "abandoned": battle_abandon_stale(),
        "snapshots": ratings_compute(),
    }
