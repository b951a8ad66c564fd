"""Arena API: create a battle, read its state (no names before the vote), add a turn, vote, read the
latest ratings, download the votes. Voting needs no account: the voter is the session (or the token's
user); writes from a session must carry its CSRF token, as the pages' forms do."""

from __future__ import annotations

from typing import Any

from django.http.response import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.authentication import SessionAuthentication
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from leaderboard.arena import exports, published, selectors, services, standing
from leaderboard.arena.identity import voter_of
from leaderboard.arena.models import Battle, RatingSnapshot, Setting, Winner


class CsrfForSessions(permissions.BasePermission):
    """DRF checks CSRF only for signed-in session users; anonymous voters are sessions too, so
    every unsafe request that is not token-authenticated must pass Django's CSRF check. The check
    reads the body (a form's token field): a body that cannot be read is refused as it is for a
    token, 400 or 415, by the parser's own exception; only a CSRF failure is a 403."""

    def has_permission(self, request: Request, view: object) -> bool:
        if request.method in permissions.SAFE_METHODS or request.auth is not None:
            return True
        SessionAuthentication().enforce_csrf(request)  # raises PermissionDenied on a CSRF failure
        return True


class TextField(serializers.CharField):
    """A CharField that refuses numbers, booleans and the like instead of turning them into text."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class PromptSerializer(serializers.Serializer):
    prompt = TextField(trim_whitespace=False, allow_blank=True, error_messages={"invalid": "prompt: must be text"})


class NewBattleSerializer(PromptSerializer):
    setting = serializers.ChoiceField(
        choices=Setting.values,
        default=Setting.SEARCH.value,
        help_text="search: contestants search the web and cite; chat: every contestant answers without search",
    )


class VoteSerializer(serializers.Serializer):
    winner = serializers.ChoiceField(choices=Winner.values)


class AnswerStateSerializer(serializers.Serializer):
    status = serializers.CharField()
    text = serializers.CharField()
    sources = serializers.ListField(child=serializers.DictField())
    searches = serializers.ListField(child=serializers.DictField(), help_text="after the vote only")
    latency_s = serializers.FloatField(
        allow_null=True, help_text="after the vote only (null before: it would tell the models apart)"
    )
    error = serializers.CharField(help_text="after the vote only")


class TurnStateSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    prompt = serializers.CharField()
    answer_a = AnswerStateSerializer()
    answer_b = AnswerStateSerializer()


class BattleStateSerializer(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.CharField()
    locked = serializers.BooleanField()
    can_vote = serializers.BooleanField()
    citation_style = serializers.DictField(child=serializers.CharField())
    setting = serializers.ChoiceField(choices=Setting.values)
    turns = TurnStateSerializer(many=True)
    reveal = serializers.DictField(
        required=False, help_text="names, makers and descriptions; present only after the vote"
    )
    vote = serializers.DictField(required=False, allow_null=True)


class RatingSnapshotSerializer(serializers.Serializer):
    kind = serializers.CharField()
    filter_key = serializers.CharField()
    filter_value = serializers.CharField()
    n_votes = serializers.IntegerField()
    n_excluded = serializers.IntegerField()
    computed_at = serializers.DateTimeField()
    config = serializers.DictField()
    result = serializers.SerializerMethodField()

    @extend_schema_field(
        serializers.DictField(
            help_text="the fit; each of its models rows also says ranked, rank (null while "
            "provisional), provisional and standing (why not ranked, in words)"
        )
    )
    def get_result(self, snapshot: RatingSnapshot) -> dict[str, Any]:
        return standing.public_result(snapshot)


def _refused(exc: services.ArenaRefused) -> Response:
    body = {"detail": str(exc)}
    if exc.field:
        body["field"] = exc.field
    return Response(body, status=exc.status)


@extend_schema(
    parameters=[OpenApiParameter("public_id", str, OpenApiParameter.PATH, description="the battle's random public id")]
)
class BattleViewSet(viewsets.ViewSet):
    permission_classes = [CsrfForSessions]
    lookup_field = "public_id"
    lookup_value_regex = "[A-Za-z0-9_-]{1,32}"  # secrets.token_urlsafe; anything else is a 404 before any query

    def _battle(self, public_id: str) -> Battle:
        from django.http import Http404

        battle = selectors.battle_for_page(public_id=public_id)
        if battle is None:
            raise Http404("no such battle")
        return battle

    def _state(self, battle: Battle, code: int = status.HTTP_200_OK) -> Response:
        battle.refresh_from_db()
        return Response(selectors.battle_state(battle=battle), status=code)

    @extend_schema(request=NewBattleSerializer, responses={201: BattleStateSerializer})
    def create(self, request: Request) -> Response:
        data = NewBattleSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            battle = services.battle_create(
                prompt=data.validated_data["prompt"],
                voter=voter_of(request._request),
                setting=data.validated_data["setting"],
            )
        except services.ArenaRefused as exc:
            return _refused(exc)
        return self._state(battle, status.HTTP_201_CREATED)

    @extend_schema(responses=BattleStateSerializer)
    def retrieve(self, request: Request, public_id: str | None = None) -> Response:
        return self._state(self._battle(str(public_id)))

    @extend_schema(request=PromptSerializer, responses={201: BattleStateSerializer})
    @action(detail=True, methods=["post"])
    def turns(self, request: Request, public_id: str | None = None) -> Response:
        return self._act(
            request,
            public_id,
            PromptSerializer,
            lambda battle, data, voter: services.turn_add(battle=battle, prompt=data["prompt"], voter=voter),
        )

    @extend_schema(request=VoteSerializer, responses={201: BattleStateSerializer})
    @action(detail=True, methods=["post"])
    def vote(self, request: Request, public_id: str | None = None) -> Response:
        return self._act(
            request,
            public_id,
            VoteSerializer,
            lambda battle, data, voter: services.vote_cast(battle=battle, winner=data["winner"], voter=voter),
        )

    def _act(self, request: Request, public_id: str | None, serializer: type, act: Any) -> Response:
        """Validate the body, call the service as this voter, answer with the battle's new state
        (or the service's refusal)."""
        battle = self._battle(str(public_id))
        data = serializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            act(battle, data.validated_data, voter_of(request._request))
        except services.ArenaRefused as exc:
            return _refused(exc)
        return self._state(battle, status.HTTP_201_CREATED)


class ComparedModelSerializer(serializers.Serializer):
    name = serializers.CharField()
    search_rating = serializers.FloatField()
    search_low = serializers.FloatField()
    search_high = serializers.FloatField()
    search_votes = serializers.IntegerField()
    chat_rating = serializers.FloatField()
    chat_low = serializers.FloatField()
    chat_high = serializers.FloatField()
    chat_votes = serializers.IntegerField()
    difference = serializers.FloatField(help_text="chat minus search, both relative to the reference model")
    difference_low = serializers.FloatField()
    difference_high = serializers.FloatField()
    clear = serializers.BooleanField(help_text="the difference's 95% interval excludes zero")
    reference = serializers.BooleanField(
        help_text="the model both settings are anchored on (difference 0 by construction)"
    )


class SettingComparisonSerializer(serializers.Serializer):
    reference = serializers.CharField()
    comparable = serializers.BooleanField()
    why_not = serializers.CharField(allow_blank=True)
    rows = ComparedModelSerializer(many=True)
    only_in = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    method = serializers.CharField()
    votes = serializers.DictField(child=serializers.IntegerField())
    computed_at = serializers.DateTimeField()
    paper_protocol = serializers.CharField(help_text="what the Search Arena paper did")
    differences = serializers.ListField(
        child=serializers.CharField(), help_text="where our protocol differs from the paper's"
    )


class IntentTestSerializer(serializers.Serializer):
    intent = serializers.CharField()
    wins = serializers.IntegerField(help_text="votes for the side with search")
    losses = serializers.IntegerField(help_text="votes for the side without search")
    ties = serializers.IntegerField(help_text="ties and both-bad: not in n")
    n = serializers.IntegerField(help_text="wins + losses")
    share = serializers.FloatField(allow_null=True, help_text="wins / n; null when n is 0")
    share_low = serializers.FloatField(allow_null=True, help_text="Wilson 95% interval")
    share_high = serializers.FloatField(allow_null=True)
    leaning = serializers.ChoiceField(choices=["search", "no search", "neither"], help_text="the side with more wins")
    p_value = serializers.FloatField(
        allow_null=True, help_text="the paper's: exact binomial, one-sided toward the leaning side"
    )
    p_two_sided = serializers.FloatField(allow_null=True)
    p_holm = serializers.FloatField(
        allow_null=True,
        help_text="two-sided, Holm-adjusted across the setting's intents; null for all intents together",
    )


class SettingHeadToHeadSerializer(serializers.Serializer):
    setting = serializers.ChoiceField(choices=Setting.values)
    title = serializers.CharField(help_text="the setting in words")
    holds = serializers.CharField(help_text="which battles this setting's table counts")
    battles = serializers.IntegerField()
    rows = IntentTestSerializer(many=True, help_text="one per primary intent")
    overall = IntentTestSerializer(help_text="all intents together")


class HeadToHeadSerializer(serializers.Serializer):
    settings = SettingHeadToHeadSerializer(many=True)
    battles = serializers.IntegerField()
    method = serializers.CharField()
    paper_protocol = serializers.CharField(help_text="what the Search Arena paper did")
    differences = serializers.ListField(
        child=serializers.CharField(), help_text="where our protocol differs from the paper's"
    )


class ConditionedModelSerializer(serializers.Serializer):
    name = serializers.CharField()
    rating = serializers.FloatField()
    ci_low = serializers.FloatField(allow_null=True, help_text="95% interval (sandwich); null: open")
    ci_high = serializers.FloatField(allow_null=True)
    rank_ub = serializers.IntegerField(help_text="1 + the models whose lower bound is above this one's upper bound")
    votes = serializers.IntegerField(help_text="neighbouring battles it fought (unweighted)")
    ranked = serializers.BooleanField(
        help_text="false: connected to no other model, or only wins or only losses near the question"
    )


class ForPromptSerializer(serializers.Serializer):
    declined = serializers.CharField(
        allow_blank=True, help_text="why no ranking is given (empty when models is filled)"
    )
    effective_votes = serializers.FloatField(help_text="Kish's (sum w)^2 / sum w^2 over the kernel weights")
    min_effective_votes = serializers.FloatField(help_text="below this the fit declines to rank")
    neighbours = serializers.IntegerField(help_text="public battles with a positive weight")
    models = ConditionedModelSerializer(many=True)
    method = serializers.CharField(allow_blank=True)
    computed_at = serializers.DateTimeField(allow_null=True, help_text="when the battles' vectors were computed")


class TopicSnapshotSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField()
    refit = serializers.BooleanField(help_text="a full refit; false: new prompts assigned to the last refit's topics")
    reason = serializers.CharField(allow_blank=True, help_text="why the full refit was made")
    representation = serializers.CharField(help_text="tfidf, or the embeddings endpoint's model")
    n_battles = serializers.IntegerField(help_text="public counted votes of the search setting")
    public_cut = serializers.DateTimeField()
    result = serializers.DictField(
        help_text="topics (label keywords, battles, share, share by month, example prompts, "
        "ratings with intervals and robustness, subtopics) and the held-out evaluation"
    )


class ArenaRatingsViewSet(viewsets.ViewSet):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter("intent", str),
            OpenApiParameter("language", str),
            OpenApiParameter(
                "setting",
                str,
                enum=[Setting.CHAT.value],
                description="chat: the plain-chat setting's board (default: the Search Arena's)",
            ),
        ],
        responses=RatingSnapshotSerializer(many=True),
    )
    def list(self, request: Request) -> Response:
        key = next((k for k in ("intent", "language") if request.query_params.get(k)), "")
        value = request.query_params.get(key, "") if key else ""
        if request.query_params.get("setting") == Setting.CHAT:
            key, value = "setting", Setting.CHAT.value
        board = selectors.latest_snapshots(filter_key=key, filter_value=value)
        return Response(RatingSnapshotSerializer([s for s in (board.raw, board.style) if s], many=True).data)

    @extend_schema(
        responses={200: SettingComparisonSerializer, 404: OpenApiTypes.OBJECT},
        description="Each model's rating with web search and in plain chat with 95% intervals, and the "
        "difference (the findings page's comparison); 404 before the plain-chat setting has counted votes.",
    )
    @action(detail=False, methods=["get"], url_path="settings")
    def by_setting(self, request: Request) -> Response:
        found = published.findings()["comparison"]
        if found is None:
            return Response({"detail": "no comparison yet: the plain-chat setting has no counted votes"}, status=404)
        return Response(SettingComparisonSerializer(found).data)

    @extend_schema(
        responses=HeadToHeadSerializer,
        description="The Search Arena paper's head-to-head test, from the counted votes: per setting and "
        "primary intent, the battles between a side with search and a side without, the search "
        "side's wins, losses and ties, its win share with a 95% interval and the binomial p-values.",
    )
    @action(detail=False, methods=["get"], url_path="head-to-head")
    def head_to_head(self, request: Request) -> Response:
        return Response(HeadToHeadSerializer(published.head_to_head()).data)

    @extend_schema(
        parameters=[OpenApiParameter("q", str, required=True, description="the question; it is not stored")],
        responses=ForPromptSerializer,
        description="The models ranked on the public battles whose first prompts are nearest the question "
        "(a kernel-weighted Bradley-Terry fit with sandwich intervals and the effective number of "
        "votes), or, in declined, why there is no ranking (too few battles near it).",
    )
    @action(detail=False, methods=["get"], url_path="for-prompt")
    def for_prompt(self, request: Request) -> Response:
        return Response(
            ForPromptSerializer(services.ratings_for_prompt(request.query_params.get("q", "")).to_dict()).data
        )

    @extend_schema(
        responses={200: TopicSnapshotSerializer, 404: OpenApiTypes.OBJECT},
        description="The topic explorer's latest snapshot; 404 before the first public counted votes.",
    )
    @action(detail=False, methods=["get"], url_path="topics")
    def topics(self, request: Request) -> Response:
        snapshot = selectors.latest_topics()
        if snapshot is None:
            return Response({"detail": "no topics yet: they appear after the first public counted votes"}, status=404)
        return Response(TopicSnapshotSerializer(snapshot).data)

    @extend_schema(
        parameters=[
            OpenApiParameter("fmt", str, enum=[*exports.FORMATS]),
            OpenApiParameter("intent", str),
            OpenApiParameter("language", str),
        ],
        responses={(200, media_type): OpenApiTypes.BINARY for media_type in exports.CONTENT_TYPES.values()},
        description="The votes behind the latest ratings (with intent or language: behind that board), "
        "as written by the ratings task; 404 before the first ratings.",
    )
    @action(detail=False, methods=["get"], url_path="votes")
    def votes(self, request: Request) -> HttpResponseBase:
        fmt = request.query_params.get("fmt", "jsonl")  # not "format": DRF reserves it for renderers
        if fmt not in exports.FORMATS:
            return Response({"detail": f"fmt: use one of {', '.join(exports.FORMATS)}", "field": "fmt"}, status=400)
        key = next((k for k in exports.FILTER_KEYS if request.query_params.get(k)), "")
        try:
            return exports.download_response(
                fmt, filter_key=key, filter_value=request.query_params.get(key, "") if key else ""
            )
        except exports.NoExport as exc:
            return Response({"detail": str(exc)}, status=404)
