"""The boards' API: benchmarks with a page of their leaderboard (``/api/benchmarks/``), the models' read
actions (compare, index, profile) added to model hosting's ``/api/models/``, and how far each board's
ranking agrees with the arena's (``/api/arena/agreement/``). The views validate, call a
selector and serialize."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluators.core.modality import MODALITIES
from leaderboard.api.refusals import refused
from leaderboard.boards import leaders, selectors
from leaderboard.boards import serializers as boards
from leaderboard.boards.agreement import published_agreement
from leaderboard.boards.compare import compare_models
from leaderboard.boards.profiles import model_profile
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.modelhost import api as modelhost_api


class BenchmarkViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Benchmark.objects.all()
    serializer_class = boards.BenchmarkSerializer
    lookup_field = "slug"

    @extend_schema(
        responses=boards.LeaderboardSerializer,
        parameters=[
            OpenApiParameter("sort", str, description="column id to sort by, e.g. pass@1 or pass@1|language=python"),
            OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="page number, from 1"),
            OpenApiParameter(
                "from", OpenApiTypes.DATE, description="date window start, YYYY-MM-DD (benchmarks with a date slice)"
            ),
            OpenApiParameter("to", OpenApiTypes.DATE, description="date window end, YYYY-MM-DD"),
        ],
    )
    @action(detail=True, methods=["get"])
    def leaderboard(self, request: Request, slug: str | None = None) -> Response:
        """One page of the benchmark's leaderboard; a slice dimension given as a parameter (e.g.
        ``language=python``) selects the headline columns' slice."""
        benchmark = self.get_object()
        try:
            query = selectors.leaderboard_query(benchmark=benchmark, params=request.query_params)
        except selectors.QueryError as exc:
            return Response({"detail": str(exc), "field": exc.field}, status=status.HTTP_400_BAD_REQUEST)
        board = selectors.leaderboard(
            benchmark=benchmark,
            user=request.user,
            sort=query.sort,
            slice_filter=query.slice_filter,
            page=query.page,
            window=query.window,
        )
        return Response(boards.LeaderboardSerializer(board).data)


# /api/models/: model hosting's list, retrieve, register and pre-flight, with the boards' reads of a model (no
# docstring: the schema would take it as the description of the operations that have none)
class ModelViewSet(modelhost_api.ModelViewSet):
    @extend_schema(
        parameters=[
            OpenApiParameter("a", str, required=True, description="the first model's slug"),
            OpenApiParameter("b", str, required=True, description="the second model's slug"),
        ],
        responses={
            200: OpenApiResponse(
                description="per benchmark: the headline and first slice of both with "
                "intervals and which is better where they do not overlap; the items "
                "where they differ; their arena head-to-head"
            ),
            400: OpenApiResponse(description="a or b missing, the same, or not a visible model"),
        },
    )
    @action(detail=False, methods=["get"])
    def compare(self, request: Request) -> Response:
        """Two models side by side (what /compare/ shows)."""
        visible = self.get_queryset()
        a = visible.filter(slug=request.query_params.get("a", "")).first()
        b = visible.filter(slug=request.query_params.get("b", "")).first()
        if a is None or b is None or a == b:
            return Response(
                {
                    "detail": "give two different visible models as ?a=<slug>&b=<slug>",
                    "field": "a" if a is None else "b",
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(compare_models(a=a, b=b, user=request.user))

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "sort", str, description="name, registered, arena or a board's slug (best first); a leading - reverses"
            ),
            OpenApiParameter("modality", str, enum=list(MODALITIES)),
            OpenApiParameter("source", str, enum=[key for key, _ in Model.SOURCE_CHOICES]),
        ],
        responses={
            200: boards.ModelsIndexSerializer,
            400: OpenApiResponse(description="a parameter with a value it does not take"),
        },
    )
    @action(detail=False, methods=["get"])
    def index(self, request: Request) -> Response:
        """Every public model with its headline (95% interval, rank) on each board and its arena rating
        (what /models/ shows)."""
        try:
            query = leaders.index_query(request.query_params)
        except leaders.IndexQueryError as exc:
            return refused(exc)
        return Response(boards.ModelsIndexSerializer(leaders.models_index(query)).data)

    @extend_schema(responses={200: boards.ModelProfileSerializer})
    @action(detail=True, methods=["get"])
    def profile(self, request: Request, slug: str | None = None) -> Response:
        """The model's profile: each benchmark's headline score with its interval and rank, its arena
        rating, provenance and latest runs (what its page shows)."""
        found = model_profile(model=self.get_object(), user=request.user)
        return Response(boards.ModelProfileSerializer(found).data)


class AgreementBoardSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    name = serializers.CharField()
    metric = serializers.CharField()
    higher_is_better = serializers.BooleanField()
    shared = serializers.ListField(
        child=serializers.CharField(), help_text="The models ranked on both, by their arena names."
    )
    spearman = serializers.FloatField(allow_null=True)
    spearman_ci = serializers.ListField(child=serializers.FloatField(), allow_null=True, min_length=2, max_length=2)
    kendall = serializers.FloatField(allow_null=True, help_text="Kendall's tau-b.")
    kendall_ci = serializers.ListField(child=serializers.FloatField(), allow_null=True, min_length=2, max_length=2)
    separability_board = serializers.FloatField(allow_null=True)
    separability_arena = serializers.FloatField(allow_null=True)
    agreement = serializers.FloatField(allow_null=True, help_text="Agreement with confidence, -1 to 1 (Arena-Hard).")
    arena_separated_pairs = serializers.IntegerField()
    reading = serializers.CharField()


class AgreementArenaSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField(allow_null=True)
    votes = serializers.IntegerField()
    ranked_models = serializers.IntegerField()


class AgreementSerializer(serializers.Serializer):
    arena = AgreementArenaSerializer()
    linked_models = serializers.IntegerField(help_text="Catalog models linked to an arena contestant.")
    min_shared = serializers.IntegerField()
    method = serializers.CharField()
    boards = AgreementBoardSerializer(many=True)


class AgreementView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses=AgreementSerializer,
        description="Each static board's ranking against the arena's, as on /arena/agreement/.",
    )
    def get(self, request: Request) -> Response:
        return Response(AgreementSerializer(published_agreement()).data)
