"""API views of the arena's published reports: the transparency report (``transparency``), the prompt
distribution (``distribution``) and each board's agreement with people (``agreement``), each the same
figures as its page, described in the OpenAPI schema."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.arena import published
from leaderboard.arena.models import Setting


class ShareSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    share = serializers.FloatField()
    ci_low = serializers.FloatField(help_text="Wilson 95% interval")
    ci_high = serializers.FloatField()


class ModelShareSerializer(ShareSerializer):
    name = serializers.CharField()
    provider = serializers.CharField()
    weight = serializers.FloatField()
    battles = serializers.IntegerField()
    target = serializers.FloatField(allow_null=True, help_text="the policy's share of seats now; null: not drawn")


class ProviderShareSerializer(ShareSerializer):
    provider = serializers.CharField()
    models = serializers.IntegerField()
    battles = serializers.IntegerField()
    target = serializers.FloatField(allow_null=True)


class SharesSerializer(serializers.Serializer):
    setting = serializers.ChoiceField(choices=Setting.values, help_text="the arena setting these battles were drawn in")
    battles = serializers.IntegerField(help_text="battles the sampler drew in this setting (imported ones excluded)")
    seats = serializers.IntegerField(help_text="two per battle; shares are of seats")
    models = ModelShareSerializer(many=True)
    providers = ProviderShareSerializer(many=True)
    prerelease_seats = serializers.IntegerField(help_text="seats of pre-release variants still under test (not named)")


class LifeSerializer(serializers.Serializer):
    name = serializers.CharField()
    provider = serializers.CharField()
    status = serializers.CharField()
    added_at = serializers.DateTimeField()
    first_counted_vote_at = serializers.DateTimeField(allow_null=True)
    retired_at = serializers.DateTimeField(allow_null=True)
    retire_reason = serializers.CharField()
    final_rating = serializers.DictField(
        allow_null=True, help_text="raw and style rows frozen at retirement or release"
    )
    votes_in_fit = serializers.IntegerField(
        help_text="its counted Search Arena votes, kept in the fit after retirement"
    )
    chat_votes_in_fit = serializers.IntegerField(
        help_text="its counted votes in the plain-chat setting (that board's fit)"
    )
    prerelease = serializers.BooleanField()
    released_at = serializers.DateTimeField(allow_null=True)


class WeekSerializer(serializers.Serializer):
    week = serializers.DateField(help_text="Monday, UTC")
    votes = serializers.IntegerField()
    excluded = serializers.IntegerField()
    excluded_share = ShareSerializer()
    by_code = serializers.DictField(child=serializers.IntegerField())
    reasons = serializers.ListField(child=serializers.IntegerField(), help_text="in the order of codes")


class ExclusionsSerializer(serializers.Serializer):
    codes = serializers.ListField(child=serializers.CharField())
    labels = serializers.ListField(child=serializers.CharField())
    weeks = WeekSerializer(many=True)


class FlipsSerializer(serializers.Serializer):
    upper = serializers.CharField()
    lower = serializers.CharField()
    gap = serializers.FloatField(help_text="the upper model's lead in the raw fit, rating points")
    upper_wins = serializers.IntegerField()
    lower_wins = serializers.IntegerField()
    ties = serializers.IntegerField()
    head_to_head = serializers.IntegerField()
    needed = serializers.IntegerField(
        allow_null=True, help_text="the flips to swap; null: flipping all head-to-head votes is not enough"
    )
    refits = serializers.IntegerField()


class FlipsListSerializer(serializers.Serializer):
    pairs = FlipsSerializer(many=True)
    fingerprint = serializers.CharField()


class SpreadSerializer(serializers.Serializer):
    name = serializers.CharField()
    rating = serializers.FloatField()
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    votes = serializers.IntegerField()
    provisional = serializers.BooleanField()
    note = serializers.CharField()
    best = serializers.IntegerField(allow_null=True)
    worst = serializers.IntegerField(allow_null=True)


class SpreadsSerializer(serializers.Serializer):
    raw = SpreadSerializer(many=True)
    style_controlled = SpreadSerializer(many=True)


class ReleasedVariantSerializer(serializers.Serializer):
    name = serializers.CharField()
    released_at = serializers.DateTimeField()
    battles = serializers.IntegerField(help_text="Search Arena battles")
    chat_battles = serializers.IntegerField(help_text="plain-chat battles")
    final_rating = serializers.DictField(allow_null=True, help_text="the Search Arena board's rows frozen at release")
    was_released = serializers.BooleanField()
    retire_reason = serializers.CharField()


class PrereleaseProviderSerializer(serializers.Serializer):
    provider = serializers.CharField()
    testing = serializers.IntegerField()
    testing_battles = serializers.IntegerField(help_text="Search Arena battles of the variants under test")
    testing_chat_battles = serializers.IntegerField(help_text="their plain-chat battles")
    released = ReleasedVariantSerializer(many=True)


class PrereleaseSerializer(serializers.Serializer):
    allowed = serializers.BooleanField()
    providers = PrereleaseProviderSerializer(many=True)


class TransparencySerializer(serializers.Serializer):
    policy = serializers.CharField(help_text="the sampling policy in words")
    public_rule = serializers.CharField(
        help_text="when a battle enters the public figures (closed, then a delay), in words"
    )
    shares = SharesSerializer(help_text="the Search Arena's battles")
    chat_shares = SharesSerializer(help_text="the plain-chat setting's battles, counted apart (another target)")
    lives = LifeSerializer(many=True)
    exclusions = ExclusionsSerializer()
    flips = FlipsListSerializer()
    rank_spreads = SpreadsSerializer()
    provisional_below = serializers.IntegerField()
    prerelease = PrereleaseSerializer()
    computed_at = serializers.DateTimeField(allow_null=True)


class DistributionRowSerializer(ShareSerializer):
    value = serializers.CharField(help_text="the intent, language, turns or length bin")
    bar = serializers.FloatField(help_text="percent of the largest row, for the chart")


class LengthSummarySerializer(serializers.Serializer):
    n = serializers.IntegerField()
    q1 = serializers.FloatField()
    median = serializers.FloatField()
    q3 = serializers.FloatField()
    p99 = serializers.FloatField()
    mean = serializers.FloatField()


class LengthByIntentSerializer(LengthSummarySerializer):
    intent = serializers.CharField()


class DistributionWeekSerializer(serializers.Serializer):
    week = serializers.DateField()
    count = serializers.IntegerField()
    by_intent = serializers.ListField(child=serializers.IntegerField(), help_text="in the order of intent_order")


class DistributionSerializer(serializers.Serializer):
    n = serializers.IntegerField(help_text="conversations behind the counted votes")
    intents = DistributionRowSerializer(many=True, required=False)
    languages = DistributionRowSerializer(many=True, required=False)
    turns = DistributionRowSerializer(many=True, required=False)
    lengths = DistributionRowSerializer(many=True, required=False)
    length_summary = LengthSummarySerializer(required=False, allow_null=True)
    length_by_intent = LengthByIntentSerializer(many=True, required=False)
    weeks = DistributionWeekSerializer(many=True, required=False)
    intent_order = serializers.ListField(child=serializers.CharField(), required=False)
    method = serializers.CharField(required=False)


class TransparencyView(APIView):
    """One object (not a list), so a plain view rather than a router's list."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses=TransparencySerializer, description="The arena's transparency report, as on /arena/transparency/."
    )
    def get(self, request: Request) -> Response:
        return Response(TransparencySerializer(published.transparency()).data)


class DistributionView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=DistributionSerializer, description="The prompt distribution, as on /arena/findings/.")
    def get(self, request: Request) -> Response:
        return Response(DistributionSerializer(published.distribution()).data)
