"""Search Arena storage: contestants, battles with their turns and traces, votes with their
exclusions (an audit trail), and rating snapshots.

A battle's panes are stored as they were shown: ``model_a`` is pane A (the released dataset's
``model_a``). The sampler tosses the side coin; ``swapped`` records its outcome as "pane A's name sorts
after pane B's", so the swap can be audited.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Literal

from django.db import models

Side = Literal["a", "b"]
#: the two panes, in display order
SIDES: tuple[Side, ...] = ("a", "b")


@dataclass(frozen=True)
class SideFields:
    """The columns that hold one pane's half of a battle and of its turns (written out, not built)."""

    model: str
    citation_style: str
    features: str
    text: str
    status: str
    answer: str


SIDE_FIELDS: dict[str, SideFields] = {
    "a": SideFields(
        model="model_a",
        citation_style="citation_style_a",
        features="features_a",
        text="text_a",
        status="status_a",
        answer="answer_a",
    ),
    "b": SideFields(
        model="model_b",
        citation_style="citation_style_b",
        features="features_b",
        text="text_b",
        status="status_b",
        answer="answer_b",
    ),
}


class AnswerStatus(models.TextChoices):
    """Where one side's answer to a turn stands."""

    PENDING = "pending", "waiting for the model"
    STREAMING = "streaming", "answering"
    COMPLETE = "complete", "complete"
    CUT_OFF = "cut_off", "cut off before it finished"
    FAILED = "failed", "failed"


#: statuses of an answer still being produced
UNFINISHED: tuple[str, ...] = (AnswerStatus.PENDING, AnswerStatus.STREAMING)
#: the finish_reason of an answer the periodic pass stopped (past the generation time limit)
TIMED_OUT = "timeout"


class ArenaModel(models.Model):
    """A contestant. ``responder`` is the JSON config given to the responder factory; secrets are
    never in it, only the name of the setting/environment variable that holds them (``api_key_ref``)."""

    name = models.CharField(max_length=200, unique=True)
    organization = models.CharField(max_length=200, blank=True, help_text="the maker, revealed after the vote")
    description = models.TextField(blank=True, help_text="what it is, shown after the vote")
    responder = models.JSONField(default=dict, blank=True)
    enabled = models.BooleanField(default=True, help_text="drawn for new battles")
    imported = models.BooleanField(default=False, help_text="created by an import; never sampled")
    weight = models.FloatField(default=1.0)
    added_at = models.DateTimeField(auto_now_add=True)
    #: its life after the draw (``services.lifecycle``): when and why it stopped being drawn, and the
    #: latest ratings frozen at that moment (its counted votes stay in every later fit)
    retired_at = models.DateTimeField(null=True, blank=True)
    retire_reason = models.TextField(blank=True)
    final_rating = models.JSONField(
        null=True, blank=True, help_text="raw and style rows frozen at retirement or release"
    )
    #: anonymous pre-release testing: drawn only while ARENA_PRERELEASE_TESTING is on; its maker and
    #: count are public from the start, its score from ``released_at`` (the provider's release)
    prerelease = models.BooleanField(
        default=False, help_text="a provider's variant under anonymous pre-release testing"
    )
    released_at = models.DateTimeField(null=True, blank=True)
    #: one identity (``leaderboard.arena.catalog_link``): the catalog's record of this contestant, set by
    #: staff; a model's profile, the models index and the comparison show arena figures only through
    #: this link, never by a catalog model's name, which anyone could register
    catalog_model = models.OneToOneField(
        "catalog.Model",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="arena_contestant",
        help_text="the catalog model that is this contestant (its profile shows the arena figures)",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


def _public_id() -> str:
    return secrets.token_urlsafe(12)


class Setting(models.TextChoices):
    """Where a battle was fought: the Search Arena (contestants search the web and cite) or the plain-chat
    setting (the same flow, every contestant answers from what it knows: no search, no citations)."""

    SEARCH = "search", "with web search"
    CHAT = "chat", "plain chat, no search"


class BattleStatus(models.TextChoices):
    OPEN = "open"
    VOTED = "voted"
    ABANDONED = "abandoned"
    FAILED = "failed"


class Battle(models.Model):
    public_id = models.CharField(max_length=32, unique=True, default=_public_id, editable=False)
    conv_id = models.CharField(
        max_length=100, unique=True, null=True, blank=True, help_text="the released dataset's id"
    )
    model_a = models.ForeignKey(ArenaModel, on_delete=models.PROTECT, related_name="+")
    model_b = models.ForeignKey(ArenaModel, on_delete=models.PROTECT, related_name="+")
    swapped = models.BooleanField(default=False)
    setting = models.CharField(max_length=8, choices=Setting.choices, default=Setting.SEARCH, db_index=True)
    citation_style_a = models.CharField(max_length=20, default="standardized")
    citation_style_b = models.CharField(max_length=20, default="standardized")
    propensity = models.FloatField(null=True, blank=True)
    voter_hash = models.CharField(max_length=64, db_index=True)
    ip_hash = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=12, choices=BattleStatus.choices, default=BattleStatus.OPEN, db_index=True)
    locked = models.BooleanField(default=False)
    primary_intent = models.CharField(max_length=40, blank=True)
    secondary_intent = models.CharField(max_length=40, blank=True)
    languages = models.JSONField(default=list, blank=True)
    features_a = models.JSONField(default=dict, blank=True)
    features_b = models.JSONField(default=dict, blank=True)
    #: released-dataset fields we keep as they came (client_country, llm_config params...)
    extra = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.public_id

    def model_of(self, side: str) -> ArenaModel:
        model: ArenaModel = getattr(self, SIDE_FIELDS[side].model)
        return model

    def citation_style_of(self, side: str) -> str:
        return str(getattr(self, SIDE_FIELDS[side].citation_style))


class Turn(models.Model):
    """One prompt and both answers (``status_*`` is an AnswerStatus)."""

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="turns")
    index = models.PositiveIntegerField()
    prompt = models.TextField()
    text_a = models.TextField(blank=True, help_text="streamed text, then the final answer")
    text_b = models.TextField(blank=True)
    status_a = models.CharField(max_length=12, choices=AnswerStatus.choices, default=AnswerStatus.PENDING)
    status_b = models.CharField(max_length=12, choices=AnswerStatus.choices, default=AnswerStatus.PENDING)
    answer_a = models.JSONField(null=True, blank=True, help_text="Answer.to_dict(): sources, searches, latency, error")
    answer_b = models.JSONField(null=True, blank=True)
    language = models.CharField(max_length=16, blank=True)
    #: when a worker took the turn on (both sides "streaming"); a claim older than
    #: ARENA_GENERATION_TIME_LIMIT may be taken over by a redelivered task, and the periodic pass turns
    #: sides still streaming past it into "failed"
    claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["battle", "index"]
        constraints = [models.UniqueConstraint(fields=["battle", "index"], name="arena_turn_unique_index")]

    @property
    def done(self) -> bool:
        return self.status_a not in UNFINISHED and self.status_b not in UNFINISHED

    def text_of(self, side: str) -> str:
        return str(getattr(self, SIDE_FIELDS[side].text))

    def status_of(self, side: str) -> str:
        return str(getattr(self, SIDE_FIELDS[side].status))

    def answer_of(self, side: str) -> dict[str, Any] | None:
        answer: dict[str, Any] | None = getattr(self, SIDE_FIELDS[side].answer)
        return answer


class Winner(models.TextChoices):
    MODEL_A = "model_a", "A is better"
    MODEL_B = "model_b", "B is better"
    TIE = "tie", "Tie"
    BOTH_BAD = "tie (bothbad)", "Both are bad"


class Vote(models.Model):
    #: one-to-one: the database's unique constraint on battle_id is what makes it one vote per battle
    battle = models.OneToOneField(Battle, on_delete=models.CASCADE, related_name="vote")
    winner = models.CharField(max_length=16, choices=Winner.choices)
    turn_count = models.PositiveIntegerField()
    valid = models.BooleanField(default=True, db_index=True)
    exclusion_reasons = models.JSONField(default=list, blank=True)
    voter_hash = models.CharField(max_length=64)
    #: the client address's salted hash (copied from the battle, so the vote's one read counts an
    #: address's votes without a join); "" for imported votes
    ip_hash = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        #: a voter's (and an address's) recent votes, the rate limit and daily caps read on every vote,
        #: without reading their history
        indexes = [
            models.Index(fields=["voter_hash", "created_at"], name="arena_vote_voter_recent"),
            models.Index(fields=["ip_hash", "created_at"], name="arena_vote_ip_recent"),
        ]


class VoteExclusion(models.Model):
    """Why a vote does not count, by whom and when: the audit trail staff read."""

    class Code(models.TextChoices):
        SELF_IDENTIFICATION = "self_identification"
        RESPONSE_ERROR = "response_error"
        DAILY_CAP = "daily_cap"
        ANOMALOUS_VOTER = "anomalous_voter"
        DUPLICATE_FLOOD = "duplicate_flood"
        STAFF = "staff"
        #: an imported Text Arena vote cast with the model names shown (its ``anony`` flag false)
        NOT_ANONYMOUS = "not_anonymous"

    vote = models.ForeignKey(Vote, on_delete=models.CASCADE, related_name="exclusions")
    code = models.CharField(max_length=32, choices=Code.choices, db_index=True)
    detail = models.TextField(blank=True)
    by = models.CharField(max_length=100, default="system")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at"]
        constraints = [models.UniqueConstraint(fields=["vote", "code"], name="arena_exclusion_once_per_code")]


class RatingSnapshot(models.Model):
    """One computed leaderboard: ``kind`` raw or style, for all votes or one intent/language."""

    kind = models.CharField(max_length=8)
    filter_key = models.CharField(max_length=20, blank=True, help_text="'', 'intent' or 'language'")
    filter_value = models.CharField(max_length=60, blank=True)
    result = models.JSONField()
    n_votes = models.PositiveIntegerField()
    n_excluded = models.PositiveIntegerField(default=0)
    fingerprint = models.CharField(max_length=64, blank=True, help_text="the votes it was computed from")
    config = models.JSONField(default=dict)
    computed_at = models.DateTimeField(auto_now_add=True, db_index=True)
    #: the fitted rows of the pre-release variants under test (their votes are in the fit, their rows are
    #: not in ``result``): never served publicly; read only to freeze a variant's score at its release
    withheld = models.JSONField(
        default=list,
        blank=True,
        help_text="rows of pre-release variants under test: fitted, never shown (frozen at release)",
    )

    class Meta:
        ordering = ["-computed_at"]


class TurnAttribution(models.Model):
    """One side's answer to one turn broken into (claim, cited source) pairs, each labelled supported,
    irrelevant, contradicting, unchecked or failed (``evaluators.arena.attribution``), with the method and every
    raw judge call behind the labels. Written after the turn is answered; never read by the vote."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="attributions")
    side = models.CharField(max_length=1)
    method = models.TextField()
    pairs = models.JSONField(default=list, blank=True)
    supported = models.PositiveIntegerField(default=0)
    irrelevant = models.PositiveIntegerField(default=0)
    contradicting = models.PositiveIntegerField(default=0)
    unchecked = models.PositiveIntegerField(default=0)
    #: pairs whose check the judge answered unusably (the release's "Failed"): in no share
    failed = models.PositiveIntegerField(default=0)
    judge_calls = models.JSONField(default=list, blank=True)
    computed_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["turn", "side"]
        constraints = [models.UniqueConstraint(fields=["turn", "side"], name="arena_attribution_once_per_side")]


class TopicSnapshot(models.Model):
    """One computation of the topic explorer (``services.topics``): the topic model (vocabulary,
    centroids, labels) in ``model``, what the topics page shows in ``result``, and the stored file of the
    public battles' vectors and topics (``vectors``: a name in the default storage) that the next
    incremental update and the prompt-conditioned ranking read."""

    fingerprint = models.CharField(max_length=64, help_text="the public votes it was computed from")
    refit = models.BooleanField(help_text="a full refit (else: new prompts assigned to the last refit's topics)")
    reason = models.TextField(blank=True, help_text="why a full refit was made")
    representation = models.CharField(max_length=200, help_text="'tfidf' or 'embeddings: <model>'")
    n_battles = models.PositiveIntegerField()
    model = models.JSONField()
    result = models.JSONField()
    vectors = models.CharField(max_length=200)
    public_cut = models.DateTimeField()
    computed_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-computed_at"]


class VoteChange(models.Model):
    """A counted vote's inputs to the ratings changed after it was cast: written by PostgreSQL triggers
    (migration 0012) when a vote's validity, winner, battle or time changes or it is deleted, when its
    battle's models, setting, propensity, intent, languages, intent method or style features change, and
    when a turn or an attribution of its battle is added, changed or removed. The ratings task's kept
    vote rows (``services.ratings.vote_table(cached=True)``) read these again; nothing else reads them.
    Kept for a week (``kept_votes.VOTE_CHANGES_KEPT``)."""

    vote_id = models.BigIntegerField()
    at = models.DateTimeField(auto_now_add=True, db_index=True)
