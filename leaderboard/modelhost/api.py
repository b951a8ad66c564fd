"""Model hosting's API: register a model and run its pre-flight again (``/api/models/``; the boards app adds
the models' read actions: compare, index, profile), and resumable weights uploads (``/api/uploads/``).
The views validate, call a service and serialize."""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import BaseParser, FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from leaderboard.api.paging import SafeJSONParser
from leaderboard.api.refusals import refused, signed_in, signed_out
from leaderboard.catalog.models import Model
from leaderboard.catalog.selectors import models_visible
from leaderboard.modelhost import serializers as s
from leaderboard.modelhost import services as modelhost
from leaderboard.modelhost.models import WeightsUpload


class ModelViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = s.ModelSerializer
    lookup_field = "slug"

    def get_queryset(self):
        return models_visible(user=self.request.user).select_related("owner")

    @extend_schema(request=s.ModelRegistrationSerializer, responses={201: s.ModelSerializer})
    def create(self, request: Request) -> Response:
        """Register a model (HF repo at a revision, uploaded weights, or an endpoint); its pre-flight is queued."""
        if not request.user.is_authenticated:
            return signed_out()
        form = s.ModelRegistrationSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = dict(form.validated_data)
        spec = modelhost.ModelSource(
            source=data.pop("source"),
            hf_repo=data.pop("hf_repo"),
            hf_revision=data.pop("hf_revision"),
            weights_upload_id=data.pop("weights_upload"),
            endpoint_base_url=data.pop("endpoint_base_url"),
            endpoint_model=data.pop("endpoint_model"),
            endpoint_api_key=data.pop("endpoint_api_key"),
        )
        try:
            model = modelhost.model_register(owner=request.user, spec=spec, **data)
        except modelhost.ModelRefused as exc:
            return refused(exc)
        return Response(
            s.ModelSerializer(Model.objects.get(pk=model.pk), context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        request=None,
        responses={
            202: s.ModelSerializer,
            403: OpenApiResponse(description="not the model's owner"),
            409: OpenApiResponse(description="a pre-flight is already queued"),
        },
    )
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
        return Response(
            s.ModelSerializer(Model.objects.get(pk=model.pk), context={"request": request}).data,
            status=status.HTTP_202_ACCEPTED,
        )


class OctetStreamParser(BaseParser):
    """A part's raw bytes: at most ``parser_context["max_bytes"]`` (the part's size, set by the view
    before it reads the body), and never more than one part of the current size."""

    media_type = "application/octet-stream"

    def parse(
        self, stream: IO[Any] | None, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:  # the raw bytes, which DRF passes on as request.data
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
            upload = modelhost.upload_create(owner=signed_in(request), **form.validated_data)
        except modelhost.ModelRefused as exc:
            return refused(exc)
        return Response(s.UploadSerializer(upload).data, status=status.HTTP_201_CREATED)

    @extend_schema(request={"application/octet-stream": bytes}, responses=s.UploadSerializer)
    @action(detail=True, methods=["put"], url_path=r"parts/(?P<number>[0-9]+)", parser_classes=[OctetStreamParser])
    def part(self, request: Request, pk: str | None = None, number: str = "0") -> Response:
        upload = self.get_object()
        declared = request.META.get("CONTENT_LENGTH") or "0"
        if not declared.isdigit():
            return Response(
                {"detail": "Content-Length: must be a number of bytes.", "field": "part"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            expected = modelhost.upload_part_size(upload=upload, user=signed_in(request), number=int(number))
            if int(declared) > expected:  # refused before a byte of the body is read
                return Response(
                    {
                        "detail": f"part {number}: the request is {declared} bytes (Content-Length), but this part is "
                        f"{expected} bytes (parts are {upload.part_size} bytes except the last).",
                        "field": "part",
                    },
                    status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
                )
            request.parser_context["max_bytes"] = expected
            data = request.data if isinstance(request.data, bytes) else b""
            modelhost.upload_put_part(upload=upload, user=signed_in(request), number=int(number), data=data)
        except modelhost.ModelRefused as exc:
            return refused(exc)
        return Response(s.UploadSerializer(upload).data)

    @extend_schema(request=None, responses=s.UploadSerializer)
    @action(detail=True, methods=["post"])
    def complete(self, request: Request, pk: str | None = None) -> Response:
        try:
            upload = modelhost.upload_complete(upload=self.get_object(), user=signed_in(request))
        except modelhost.ModelRefused as exc:
            return refused(exc, status.HTTP_409_CONFLICT)
        return Response(s.UploadSerializer(upload).data)
