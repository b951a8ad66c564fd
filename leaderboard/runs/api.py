"""The runs' API: submissions (a predictions file, or a registered model to generate with) and their runs
(cancel, re-run, item results). The views validate, call a selector or service and serialize."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from leaderboard.api.paging import SafeJSONParser
from leaderboard.api.refusals import refused, signed_in, signed_out
from leaderboard.catalog.models import Benchmark
from leaderboard.catalog.selectors import models_visible
from leaderboard.runs import selectors, services
from leaderboard.runs import serializers as s


class SubmissionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = s.SubmissionSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return (
            selectors.submissions_visible(user=self.request.user)
            .select_related("generation")
            .prefetch_related("runs__scores", "runs__benchmark", "runs__dataset_version")
        )

    @extend_schema(
        request={"multipart/form-data": s.PredictionsSubmissionSerializer}, responses={201: s.SubmissionSerializer}
    )
    def create(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            return Response(
                {"detail": "Sign in or send 'Authorization: Token <key>' to submit."},
                status=status.HTTP_401_UNAUTHORIZED,
            )
        form = s.PredictionsSubmissionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            submission = services.submission_create_from_predictions(
                owner=request.user,
                benchmark=data["benchmark"],
                model_name=data["model_name"],
                data=data["predictions"].read(),
                is_public=data["is_public"],
                note=data.get("note", ""),
                release_date=data.get("release_date"),
            )
        except services.QuotaExceeded as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        except services.SubmissionRefused as exc:
            return Response(
                {
                    "detail": str(exc),
                    "field": exc.field,
                    "problems": [{"line": line, "field": fld, "message": msg} for line, fld, msg in exc.problems],
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(
            s.SubmissionSerializer(self.get_queryset().get(pk=submission.pk)).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(request=s.ModelSubmissionSerializer, responses={201: s.SubmissionSerializer})
    @action(detail=False, methods=["post"], url_path="from-model", parser_classes=[SafeJSONParser])
    def from_model(self, request: Request) -> Response:
        """Submit a registered model to benchmarks; a worker generates its predictions, then scores them."""
        if not request.user.is_authenticated:
            return signed_out()
        form = s.ModelSubmissionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        model = models_visible(user=request.user).filter(slug=data["model"]).first()
        benchmarks = list(Benchmark.objects.filter(slug__in=data["benchmarks"]))
        unknown = sorted(set(data["benchmarks"]) - {b.slug for b in benchmarks})
        if model is None:
            return Response(
                {"detail": f"model: no model '{data['model']}'", "field": "model"}, status=status.HTTP_400_BAD_REQUEST
            )
        if unknown:
            return Response(
                {"detail": f"benchmarks: unknown {', '.join(unknown)}", "field": "benchmarks"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            submission = services.submission_create_for_model(
                owner=request.user,
                model=model,
                benchmarks=benchmarks,
                generation_settings=data["generation_settings"],
                is_public=data["is_public"],
                note=data["note"],
            )
        except services.QuotaExceeded as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        except services.SubmissionRefused as exc:
            return refused(exc)
        return Response(
            s.SubmissionSerializer(self.get_queryset().get(pk=submission.pk)).data, status=status.HTTP_201_CREATED
        )


class RunViewSet(mixins.RetrieveModelMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = s.RunSerializer

    def get_queryset(self):
        return selectors.runs_visible(user=self.request.user).prefetch_related("scores")

    @extend_schema(request=None, responses=s.RunSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        try:
            services.run_cancel(run=run, user=signed_in(request))
        except PermissionError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        return Response(s.RunSerializer(self.get_queryset().get(pk=run.pk)).data)

    @extend_schema(request=None, responses={201: s.RunSerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def rerun(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        try:
            new = services.run_rerun(run=run, user=signed_in(request))
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
        page = self.paginate_queryset(
            selectors.run_item_results(run=run, failed_only=request.query_params.get("failed") == "1")
        )
        return self.get_paginated_response(s.ItemResultSerializer(page, many=True).data)
