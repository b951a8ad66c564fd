"""Battles and turns: the pair drawn and sides swapped, both answers generated at once and streamed into the
database, the intent classified, the citations attributed, and stale turns and battles ended."""

from __future__ import annotations

import datetime as dt
import logging
import random
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from evaluators.llm.types import Answer
from leaderboard import task_sends
from leaderboard.arena.identity import Voter
from leaderboard.arena.models import (
    SIDE_FIELDS,
    SIDES,
    TIMED_OUT,
    UNFINISHED,
    AnswerStatus,
    ArenaModel,
    Battle,
    BattleStatus,
    RatingSnapshot,
    Setting,
    Turn,
    Vote,
)
from leaderboard.arena.selectors import closed_votes_q
from leaderboard.arena.services.common import (
    CITATION_STYLES,
    AlreadyVoted,
    ArenaRefused,
    NotReady,
    NotYourBattle,
    prompt_clean,
    rate_check,
)
from leaderboard.arena.services.contestants import responder_for

log = logging.getLogger(__name__)


# --- battles -----------------------------------------------------------------------------------


def sampler_models(setting: str = Setting.SEARCH, *, cut: dt.datetime | None = None) -> list[Any]:
    """The sampler's view of every enabled model that can answer in ``setting`` (not retired;
    pre-release variants only when allowed): weight, valid votes in that setting (with ``cut``, the
    public report's view: only those cast before it, ``selectors.public_cut``), and its latest
    interval width there."""
    from evaluators.arena.sampling import ModelStats
    from leaderboard.arena.services.contestants import drawable_models

    models = drawable_models(setting)
    board = (
        {"filter_key": "", "filter_value": ""}
        if setting == Setting.SEARCH
        else {"filter_key": "setting", "filter_value": setting}
    )
    latest = RatingSnapshot.objects.filter(kind="raw", **board).first()
    widths = {}
    if latest:  # a pre-release variant under test has its row in the withheld part (never shown, read here)
        for row in [*latest.result.get("models", []), *(latest.withheld or [])]:
            if row.get("ci_high") is not None and row.get("ci_low") is not None:
                widths[row["name"]] = float(row["ci_high"]) - float(row["ci_low"])
    votes: Counter[int] = Counter()
    counted = Vote.objects.filter(valid=True, battle__setting=setting)
    if cut is not None:
        counted = counted.filter(closed_votes_q(cut))
    for side in ("battle__model_a", "battle__model_b"):
        votes.update(dict(counted.values_list(side).annotate(n=Count("id")).values_list(side, "n")))
    return [ModelStats(name=m.name, weight=m.weight, votes=votes[m.pk], ci_width=widths.get(m.name)) for m in models]


def battle_create(
    *, prompt: str, voter: Voter, rng: random.Random | None = None, setting: str = Setting.SEARCH
) -> Battle:
    """Draw a pair among the models that can answer in ``setting`` (sides swapped at random by the
    sampler), pick each side's citation style (search setting only: plain answers cite nothing), and
    start the first turn."""
    if setting not in Setting.values:
        raise ArenaRefused(f"setting: {setting!r} is not one of {', '.join(Setting.values)}", field="setting")
    prompt = prompt_clean(prompt)
    rate_check(voter=voter, what="prompt")
    from evaluators.arena.sampling import choose_pair

    rng = rng or random.SystemRandom()
    stats = sampler_models(setting)
    if len(stats) < 2:
        where = "" if setting == Setting.SEARCH else " that can answer without search"
        raise ArenaRefused(f"the arena needs at least two enabled models{where}; an operator must add them", status=503)
    pair = choose_pair(stats, rng=rng, active=settings.ARENA_ACTIVE_SAMPLING)
    by_name = {m.name: m for m in ArenaModel.objects.filter(name__in=[pair.a, pair.b])}
    # choose_pair has already tossed the side coin; ``swapped`` records its outcome against name order.
    first, second = by_name[pair.a], by_name[pair.b]
    swapped = pair.a > pair.b
    randomize = settings.ARENA_RANDOMIZE_CITATION_STYLE and setting == Setting.SEARCH
    styles = [rng.choice(CITATION_STYLES) if randomize else "standardized" for _ in SIDES]
    with transaction.atomic():
        battle = Battle.objects.create(
            model_a=first,
            model_b=second,
            swapped=swapped,
            citation_style_a=styles[0],
            citation_style_b=styles[1],
            propensity=pair.propensity,
            voter_hash=voter.hash,
            ip_hash=voter.ip_hash,
            setting=setting,
        )
        turn = Turn.objects.create(battle=battle, index=0, prompt=prompt)
        task_sends.arena_generate_turn(turn.pk)
    return battle


def owned_open_battle(battle: Battle, voter: Voter) -> None:
    if battle.voter_hash != voter.hash:
        raise NotYourBattle("this battle belongs to another visitor; start your own")
    _open_battle(battle)


def _open_battle(battle: Battle) -> None:
    """Refuse a battle that is locked or no longer open (abandoned after a day, failed)."""
    if battle.locked:
        raise AlreadyVoted("this battle is already voted on and locked; start a new one")
    if battle.status != BattleStatus.OPEN:
        raise NotReady(f"this battle is {battle.status} and takes no more prompts or votes; start a new one")


def turn_add(*, battle: Battle, prompt: str, voter: Voter) -> Turn:
    """Continue the conversation: both responders get the whole history and the new prompt."""
    prompt = prompt_clean(prompt)
    owned_open_battle(battle, voter)
    rate_check(voter=voter, what="prompt")
    with transaction.atomic():
        locked = Battle.objects.select_for_update().get(pk=battle.pk)
        _open_battle(locked)
        turns = list(locked.turns.order_by("index"))
        if len(turns) >= settings.ARENA_MAX_TURNS:
            raise ArenaRefused(
                f"prompt: this battle has reached the limit of {settings.ARENA_MAX_TURNS} turns; vote or start a new "
                f"one",
                field="prompt",
            )
        if turns and not turns[-1].done:
            raise NotReady("wait until both answers are complete before the next prompt")
        turn = Turn.objects.create(battle=locked, index=len(turns), prompt=prompt)
        task_sends.arena_generate_turn(turn.pk)
    return turn


def history_for(turn: Turn, side: str) -> list[dict[str, str]]:
    """The conversation one side has seen: earlier prompts with that side's answers, then this prompt."""
    messages: list[dict[str, str]] = []
    for earlier in turn.battle.turns.filter(index__lt=turn.index).order_by("index"):
        messages.append({"role": "user", "content": earlier.prompt})
        messages.append({"role": "assistant", "content": earlier.text_of(side)})
    messages.append({"role": "user", "content": turn.prompt})
    return messages


def answer_status(answer: Answer) -> AnswerStatus:
    if answer.complete:
        return AnswerStatus.COMPLETE
    return AnswerStatus.CUT_OFF if answer.finish_reason == "length" and not answer.error else AnswerStatus.FAILED


def _claimed_side(turn_id: int, side: str, claim: dt.datetime) -> Any:
    """The Turn row for writes by the generation holding ``claim``: once the claim is taken over or
    the periodic pass has failed the side, a late writer (a worker thought dead) changes nothing."""
    return Turn.objects.filter(pk=turn_id, claimed_at=claim, **{f"{SIDE_FIELDS[side].status}__in": UNFINISHED})


class _Stream:
    """Collects one side's deltas and writes the text so far to the Turn row at most every
    ARENA_STREAM_FLUSH_SECONDS, so web processes (and other machines) can show it."""

    def __init__(self, turn_id: int, side: str, claim: dt.datetime) -> None:
        self.turn_id, self.side, self.claim = turn_id, side, claim
        self.parts: list[str] = []
        self.last_flush = 0.0

    def __call__(self, delta: str) -> None:
        self.parts.append(delta)
        now = time.monotonic()
        if now - self.last_flush >= settings.ARENA_STREAM_FLUSH_SECONDS:
            self.last_flush = now
            fields = SIDE_FIELDS[self.side]
            _claimed_side(self.turn_id, self.side, self.claim).update(
                **{fields.text: "".join(self.parts), fields.status: AnswerStatus.STREAMING}
            )


def _generate_side(turn: Turn, side: str, claim: dt.datetime) -> None:
    battle = turn.battle
    model: ArenaModel = battle.model_of(side)
    style = battle.citation_style_of(side)
    started = time.monotonic()
    try:
        responder = responder_for(model, battle.setting)
        answer = responder.respond(
            history_for(turn, side), on_delta=_Stream(turn.pk, side, claim), citation_style=style
        )
    except Exception as exc:  # the Responder contract says it does not raise; a broken config still might
        log.exception("arena responder for turn %s side %s raised", turn.pk, side)
        answer = Answer(
            text="",
            sources=[],
            searches=[],
            citation_style=style,
            finish_reason="error",
            latency_s=time.monotonic() - started,
            error=f"{type(exc).__name__}: {exc}",
        )
    fields = SIDE_FIELDS[side]
    _claimed_side(turn.pk, side, claim).update(
        **{fields.text: answer.text, fields.answer: answer.to_dict(), fields.status: answer_status(answer)}
    )
    connection.close()  # this thread's own connection


def _stale_claim() -> dt.datetime:
    return timezone.now() - dt.timedelta(seconds=settings.ARENA_GENERATION_TIME_LIMIT)


def turn_generate(*, turn_id: int) -> str:
    """Run both responders at once (the task body). The turn is claimed (both sides "streaming",
    ``claimed_at`` now); a redelivered message (late acks: its worker was killed mid-turn) finds the
    claim and does nothing while it is younger than ARENA_GENERATION_TIME_LIMIT, and takes it over,
    generating the unfinished sides again, once it is older. A finished turn is left alone."""
    claim = timezone.now()
    unfinished = Q(status_a__in=UNFINISHED) | Q(status_b__in=UNFINISHED)
    fresh = Q(status_a=AnswerStatus.PENDING, status_b=AnswerStatus.PENDING, claimed_at__isnull=True)
    stale = unfinished & (Q(claimed_at__lt=_stale_claim()) | Q(claimed_at__isnull=True, created_at__lt=_stale_claim()))
    with transaction.atomic():
        turn = (
            Turn.objects.select_for_update(of=("self",))
            .select_related("battle__model_a", "battle__model_b")
            .filter(Q(pk=turn_id) & (fresh | stale))
            .first()
        )
        if turn is None:
            return "already generated"
        sides = [side for side in SIDES if turn.status_of(side) in UNFINISHED]
        Turn.objects.filter(pk=turn_id).update(
            claimed_at=claim, **{SIDE_FIELDS[side].status: AnswerStatus.STREAMING for side in sides}
        )
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix=f"arena-turn-{turn_id}") as pool:
        list(pool.map(lambda side: _generate_side(turn, side, claim), sides))
    close_old_connections()
    _classify(turn)
    # after both answers are stored, so the vote never waits for the attribution's judge calls
    from leaderboard.arena.services.attribution import turn_attribute_quietly

    turn_attribute_quietly(turn.pk)
    turn.refresh_from_db()
    return f"{turn.status_a}/{turn.status_b}"


_intent_judges: dict[str, Any] = {}


def _intent_judge() -> tuple[Any, str]:
    """The configured intent judge (one per process, its connection pool reused), or (None, why not)."""
    key = settings.ARENA_INTENT_JUDGE
    if not key:
        return None, ""
    if key not in _intent_judges:
        from leaderboard.modelhost.judging import JudgeNotConfigured, judge_for

        try:
            _intent_judges[key] = judge_for(key, concurrency=2)
        except JudgeNotConfigured as exc:
            return None, f"intent judge not usable: {exc}"
    return _intent_judges[key], ""


def _classify(turn: Turn) -> None:
    """Language per turn (offline identification) and, on the first turn, the battle's intent."""
    from evaluators.arena import intent, language

    lang = language.detect(turn.prompt) or ""
    Turn.objects.filter(pk=turn.pk).update(language=lang)
    battle = turn.battle
    updates: dict[str, Any] = {}
    if lang and lang not in battle.languages:
        updates["languages"] = [*battle.languages, lang]
    if turn.index == 0:
        judge, problem = _intent_judge()
        found = intent.classify_detailed(turn.prompt, judge=judge)
        method = f"{found.method}; {problem}" if problem else found.method
        extra = {**battle.extra, "intent_method": method}
        if found.judge_call:
            extra["intent_judge_call"] = found.judge_call
        updates.update(primary_intent=found.primary or "", secondary_intent=found.secondary or "", extra=extra)
    if updates:
        Battle.objects.filter(pk=battle.pk).update(**updates)


def battle_abandon_stale(*, older_than: dt.timedelta = dt.timedelta(days=1)) -> int:
    return Battle.objects.filter(status=BattleStatus.OPEN, created_at__lt=timezone.now() - older_than).update(
        status=BattleStatus.ABANDONED
    )


def turns_resend_unclaimed() -> int:
    """Send again the turns no arena worker has claimed ARENA_TURN_RESEND_SECONDS after they were asked
    (their message was lost with a broker restart, or never sent while it was down). A duplicate is
    harmless: ``turn_generate`` claims a turn once. Returns the number of turns sent again."""
    cutoff = timezone.now() - dt.timedelta(seconds=settings.ARENA_TURN_RESEND_SECONDS)
    waiting = list(
        Turn.objects.filter(
            status_a=AnswerStatus.PENDING,
            status_b=AnswerStatus.PENDING,
            claimed_at__isnull=True,
            created_at__lt=cutoff,
            battle__status=BattleStatus.OPEN,
        ).values_list("pk", flat=True)[:500]
    )
    for turn_id in waiting:
        task_sends.arena_generate_turn(turn_id)
    return len(waiting)


def turns_fail_stale() -> int:
    """Turn each side still "streaming" past ARENA_GENERATION_TIME_LIMIT since its claim (its worker
    died or hung; the threads pool enforces no time limit) into "failed", with the reason in its
    answer, so the battle can be voted on and the panes stop polling. Clearing the claim makes any
    late write by the old generation a no-op. Returns the number of sides failed."""
    limit = settings.ARENA_GENERATION_TIME_LIMIT
    stale = _stale_claim()
    failed = 0
    for side in SIDES:
        fields = SIDE_FIELDS[side]
        streaming = {fields.status: AnswerStatus.STREAMING}
        rows = Turn.objects.filter(
            Q(claimed_at__lt=stale) | Q(claimed_at__isnull=True, created_at__lt=stale), **streaming
        )
        for turn in rows.select_related("battle").only(
            "pk", "claimed_at", fields.text, fields.status, f"battle__{fields.citation_style}"
        ):
            answer = Answer(
                text=turn.text_of(side),
                sources=[],
                searches=[],
                finish_reason=TIMED_OUT,
                latency_s=float(limit),
                citation_style=turn.battle.citation_style_of(side),
                error=f"the answer did not finish within the generation time limit of {limit} s and was stopped",
            )
            failed += Turn.objects.filter(pk=turn.pk, claimed_at=turn.claimed_at, **streaming).update(
                claimed_at=None, **{fields.status: AnswerStatus.FAILED, fields.answer: answer.to_dict()}
            )
    return failed
