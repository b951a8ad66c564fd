"""API views: validate, call a selector or service, serialize."""
from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from django.contrib.auth.models import User
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated
from rest_framework.parsers import BaseParser, FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from evaluators.core.modality import MODALITIES
from leaderboard.api import serializers as s
from leaderboard.api.paging import SafeJSONParser
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.modelhost import services as modelhost
from leaderboard.modelhost.models import WeightsUpload
from leaderboard.submissions import leaders, selectors, services
from leaderboard.submissions import serializers as boards
from leaderboard.submissions.compare import compare_models
from leaderboard.submissions.profiles import model_profile


def _refused(exc: Exception, code: int = status.HTTP_400_BAD_REQUEST) -> Response:
    return Response({"detail": str(exc), "field": getattr(exc, "field", None)}, status=code)


def _signed_out() -> Response:
    return Response({"detail": "Sign in or send 'Authorization: Token <key>'."}, status=status.HTTP_401_UNAUTHORIZED)


class BenchmarkViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Benchmark.objects.all()
    serializer_class = s.BenchmarkSerializer
    lookup_field = "slug"

    @extend_schema(responses=boards.LeaderboardSerializer, parameters=[
        OpenApiParameter("sort", str, description="column id to sort by, e.g. pass@1 or pass@1|language=python"),
        OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="page number, from 1"),
        OpenApiParameter("from", OpenApiTypes.DATE, description="date window start, YYYY-MM-DD (benchmarks with a date slice)"),
        OpenApiParameter("to", OpenApiTypes.DATE, description="date window end, YYYY-MM-DD"),
    ])
    @action(detail=True, methods=["get"])
    def leaderboard(self, request: Request, slug: str | None = None) -> Response:
        """One page of the benchmark's leaderboard; a slice dimension given as a parameter (e.g.
        ``language=python``) selects the headline columns' slice."""
        benchmark = self.get_object()
        try:
            query = selectors.leaderboard_query(benchmark=benchmark, params=request.query_params)
        except selectors.QueryError as exc:
            return Response({"detail": str(exc), "field": exc.field}, status=status.HTTP_400_BAD_REQUEST)
        board = selectors.leaderboard(benchmark=benchmark, user=request.user, sort=query.sort, slice_filter=query.slice_filter,
                                      page=query.page, window=query.window)
        return Response(boards.LeaderboardSerializer(board).data)


class ModelViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = s.ModelSerializer
    lookup_field = "slug"

    def get_queryset(self):
        return selectors.models_visible(user=self.request.user).select_related("owner")

    @extend_schema(request=s.ModelRegistrationSerializer, responses={201: s.ModelSerializer})
    def create(self, request: Request) -> Response:
        """Register a model (HF repo at a revision, uploaded weights, or an endpoint); its pre-flight is queued."""
        if not request.user.is_authenticated:
            return _signed_out()
        form = s.ModelRegistrationSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = dict(form.validated_data)
        spec = modelhost.ModelSource(source=data.pop("source"), hf_repo=data.pop("hf_repo"), hf_revision=data.pop("hf_revision"),
                                     weights_upload_id=data.pop("weights_upload"), endpoint_base_url=data.pop("endpoint_base_url"),
                                     endpoint_model=data.pop("endpoint_model"), endpoint_api_key=data.pop("endpoint_api_key"))
        try:
            model = modelhost.model_register(owner=request.user, spec=spec, **data)
        except modelhost.ModelRefused as exc:
            return _refused(exc)
        return Response(s.ModelSerializer(Model.objects.get(pk=model.pk), context={"request": request}).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={202: s.ModelSerializer, 403: OpenApiResponse(description="not the model's owner"),
                                            409: OpenApiResponse(description="a pre-flight is already queued")})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def preflight(self, request: Request, slug: str | None = None) -> Response:
        """Run the model's pre-flight again (after fixing the model or its endpoint)."""
        model = self.get_object()
        try:
            modelhost.model_preflight_request(model=model, user=request.user)
        except PermissionError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        except modelhost.PreflightAlreadyQueued as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(s.ModelSerializer(Model.objects.get(pk=model.pk), context={"request": request}).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(parameters=[OpenApiParameter("a", str, required=True, description="the first model's slug"),
                               OpenApiParameter("b", str, required=True, description="the second model's slug")],
                   responses={200: OpenApiResponse(description="per benchmark: the headline and first slice of both with "
                                                               "intervals and which is better where they do not overlap; the items "
                                                               "where they differ; their arena head-to-head"),
                              400: OpenApiResponse(description="a or b missing, the same, or not a visible model")})
    @action(detail=False, methods=["get"])
    def compare(self, request: Request) -> Response:
        """Two models side by side (what /compare/ shows)."""
        visible = self.get_queryset()
        a = visible.filter(slug=request.query_params.get("a", "")).first()
        b = visible.filter(slug=request.query_params.get("b", "")).first()
        if a is None or b is None or a == b:
            return Response({"detail": "give two different visible models as ?a=<slug>&b=<slug>", "field": "a" if a is None else "b"},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response(compare_models(a=a, b=b, user=request.user))

    @extend_schema(parameters=[OpenApiParameter("sort", str, description="name, registered, arena or a board's slug (best "
                                                                       "first); a leading - reverses"),
                               OpenApiParameter("modality", str, enum=list(MODALITIES)),
                               OpenApiParameter("source", str, enum=[key for key, _ in Model.SOURCE_CHOICES])],
                   responses={200: boards.ModelsIndexSerializer, 400: OpenApiResponse(description="a parameter with a value it does not take")})
    @action(detail=False, methods=["get"])
    def index(self, request: Request) -> Response:
        """Every public model with its headline (95% interval, rank) on each board and its arena rating
        (what /models/ shows)."""
        try:
            query = leaders.index_query(request.query_params)
        except leaders.IndexQueryError as exc:
            return _refused(exc)
        return Response(boards.ModelsIndexSerializer(leaders.models_index(query)).data)

    @extend_schema(responses={200: s.ModelProfileSerializer})
    @action(detail=True, methods=["get"])
    def profile(self, request: Request, slug: str | None = None) -> Response:
        """The model's profile: each benchmark's headline score with its interval and rank, its arena
        rating, provenance and latest runs (what its page shows)."""
        found = model_profile(model=self.get_object(), user=request.user)
        return Response(s.ModelProfileSerializer(found).data)


def _signed_in(request: Request) -> User:
    """The user of a view whose permission class requires one to be signed in."""
    if not isinstance(request.user, User):
        raise NotAuthenticated()
    return request.user


class OctetStreamParser(BaseParser):
    """A part's raw bytes: at most ``parser_context["max_bytes"]`` (the part's size, set by the view
    before it reads the body), and never more than one part of the current size."""

    media_type = "application/octet-stream"

    def parse(self, stream: IO[Any] | None, media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:  # the raw bytes, which DRF passes on as request.data
        limit = (parser_context or {}).get("max_bytes", settings.UPLOAD_PART_BYTES)
        return stream.read(limit) if stream is not None else b""


class UploadViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Resumable weight uploads: create (filename, size, sha256) -> id and part size; PUT each part's
    bytes to parts/<n>/ (1-based; re-sending replaces it); GET the upload to see which parts arrived
    (resume by sending the others); POST complete/."""

    serializer_class = s.UploadSerializer
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [SafeJSONParser, FormParser, MultiPartParser]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no user
            return WeightsUpload.objects.none()
        return WeightsUpload.objects.filter(owner=self.request.user)

    @extend_schema(request=s.UploadCreateSerializer, responses={201: s.UploadSerializer})
    def create(self, request: Request) -> Response:
        form = s.UploadCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            upload = modelhost.upload_create(owner=_signed_in(request), **form.validated_data)
        except modelhost.ModelRefused as exc:
            return _refused(exc)
        return Response(s.UploadSerializer(upload).data, status=status.HTTP_201_CREATED)

    @extend_schema(request={"application/octet-stream": bytes}, responses=s.UploadSerializer)
    @action(detail=True, methods=["put"], url_path=r"parts/(?P<number>[0-9]+)", parser_classes=[OctetStreamParser])
    def part(self, request: Request, pk: str | None = None, number: str = "0") -> Response:
        upload = self.get_object()
        declared = request.META.get("CONTENT_LENGTH") or "0"
        if not declared.isdigit():
            return Response({"detail": "Content-Length: must be a number of bytes.", "field": "part"}, status=status.HTTP_400_BAD_REQUEST)
        try:
            expected = modelhost.upload_part_size(upload=upload, user=_signed_in(request), number=int(number))
            if int(declared) > expected:  # refused before a byte of the body is read
                return Response({"detail": f"part {number}: the request is {declared} bytes (Content-Length), but this part is "
                                           f"{expected} bytes (parts are {upload.part_size} bytes except the last).", "field": "part"},
                                status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
            request.parser_context["max_bytes"] = expected
            data = request.data if isinstance(request.data, bytes) else b""
            modelhost.upload_put_part(upload=upload, user=_signed_in(request), number=int(number), data=data)
        except modelhost.ModelRefused as exc:
            return _refused(exc)
        return Response(s.UploadSerializer(upload).data)

    @extend_schema(request=None, responses=s.UploadSerializer)
    @action(detail=True, methods=["post"])
    def complete(self, request: Request, pk: str | None = None) -> Response:
        try:
            upload = modelhost.upload_complete(upload=self.get_object(), user=_signed_in(request))
        except modelhost.ModelRefused as exc:
            return _refused(exc, status.HTTP_409_CONFLICT)
        return Response(s.UploadSerializer(upload).data)


class SubmissionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = s.SubmissionSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return selectors.submissions_visible(user=self.request.user).select_related("generation").prefetch_related(
            "runs__scores", "runs__benchmark", "runs__dataset_version")

    @extend_schema(request={"multipart/form-data": s.PredictionsSubmissionSerializer}, responses={201: s.SubmissionSerializer})
    def create(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            return Response({"detail": "Sign in or send 'Authorization: Token <key>' to submit."}, status=status.HTTP_401_UNAUTHORIZED)
        form = s.PredictionsSubmissionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            submission = services.submission_create_from_predictions(
                owner=request.user, benchmark=data["benchmark"], model_name=data["model_name"], data=data["predictions"].read(),
                is_public=data["is_public"], note=data.get("note", ""), release_date=data.get("release_date"))
        except services.QuotaExceeded as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        except services.SubmissionRefused as exc:
            return Response({"detail": str(exc), "field": exc.field,
                             "problems": [{"line": line, "field": fld, "message": msg} for line, fld, msg in exc.problems]},
                            status=status.HTTP_400_BAD_REQUEST)
        return Response(s.SubmissionSerializer(self.get_queryset().get(pk=submission.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.ModelSubmissionSerializer, responses={201: s.SubmissionSerializer})
    @action(detail=False, methods=["post"], url_path="from-model", parser_classes=[SafeJSONParser])
    def from_model(self, request: Request) -> Response:
        """Submit a registered model to benchmarks; a worker generates its predictions, then scores them."""
        if not request.user.is_authenticated:
            return _signed_out()
        form = s.ModelSubmissionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        model = selectors.models_visible(user=request.user).filter(slug=data["model"]).first()
        benchmarks = list(Benchmark.objects.filter(slug__in=data["benchmarks"]))
        unknown = sorted(set(data["benchmarks"]) - {b.slug for b in benchmarks})
        if model is None:
            return Response({"detail": f"model: no model '{data['model']}'", "field": "model"}, status=status.HTTP_400_BAD_REQUEST)
        if unknown:
            return Response({"detail": f"benchmarks: unknown {', '.join(unknown)}", "field": "benchmarks"}, status=status.HTTP_400_BAD_REQUEST)
        try:
            submission = services.submission_create_for_model(
                owner=request.user, model=model, benchmarks=benchmarks, generation_settings=data["generation_settings"],
                is_public=data["is_public"], note=data["note"])
        except services.QuotaExceeded as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        except services.SubmissionRefused as exc:
            return _refused(exc)
        return Response(s.SubmissionSerializer(self.get_queryset().get(pk=submission.pk)).data, status=status.HTTP_201_CREATED)


class RunViewSet(mixins.RetrieveModelMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = s.RunSerializer

    def get_queryset(self):
        return selectors.runs_visible(user=self.request.user).prefetch_related("scores")

    @extend_schema(request=None, responses=s.RunSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        try:
            services.run_cancel(run=run, user=_signed_in(request))
        except PermissionError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        return Response(s.RunSerializer(self.get_queryset().get(pk=run.pk)).data)

    @extend_schema(request=None, responses={201: s.RunSerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def rerun(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        try:
            new = services.run_rerun(run=run, user=_signed_in(request))
        except PermissionError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        except services.QuotaExceeded as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        except services.SubmissionRefused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(s.RunSerializer(self.get_queryset().get(pk=new.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=s.ItemResultSerializer(many=True))
    @action(detail=True, methods=["get"])
    def items(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        page = self.paginate_queryset(selectors.run_item_results(run=run, failed_only=request.query_params.get("failed") == "1"))
        return self.get_paginated_response(s.ItemResultSerializer(page, many=True).data)
