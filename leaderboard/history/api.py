"""History API: a board's snapshots (GET /api/benchmarks/<slug>/snapshots/ and .../<id>/, with the
citation, the digests of the stored downloads, the download addresses, and the rows less any withheld
with the public notes saying why) and its public changelog (GET /api/benchmarks/<slug>/changelog/).
Addresses are on the host the request came to. Read-only; the views call selectors."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.catalog.models import Benchmark
from leaderboard.history import selectors
from leaderboard.history.models import ChangeKind, ChangelogEntry, Snapshot
from leaderboard.http import site_address


class SnapshotSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    url = serializers.SerializerMethodField()
    frozen_at = serializers.DateTimeField()
    reason = serializers.CharField()
    corrects = serializers.IntegerField(source="corrects_id", allow_null=True)
    dataset_version = serializers.SerializerMethodField()
    csv_sha256 = serializers.CharField(help_text="of the CSV file as stored when frozen")
    json_sha256 = serializers.CharField(help_text="of the JSON file as stored when frozen")
    parquet_sha256 = serializers.CharField(
        help_text="of the Parquet file as stored; empty when none was made (pyarrow not installed)"
    )

    def get_url(self, snapshot: Snapshot) -> str:
        return selectors.snapshot_url(snapshot, self.context.get("request"))

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_dataset_version(self, snapshot: Snapshot) -> str | None:
        return snapshot.dataset_version.tag if snapshot.dataset_version else None


class CitationSerializer(serializers.Serializer):
    key = serializers.CharField()
    bibtex = serializers.CharField()
    text = serializers.CharField()


class DownloadsSerializer(serializers.Serializer):
    csv = serializers.CharField()
    json = serializers.CharField()
    parquet = serializers.CharField(allow_null=True)


class WithheldNoteSerializer(serializers.Serializer):
    rows = serializers.IntegerField()
    on = serializers.DateField(allow_null=True, help_text="when they were withheld (null: not recorded)")
    reason = serializers.CharField()
    text = serializers.CharField(
        source="__str__", help_text='e.g. "1 row withheld on 2026-12-06: the submission was made private"'
    )


class SnapshotSerializer(SnapshotSummarySerializer):
    """A snapshot as frozen, less its withheld rows (``context["withheld"]``, from ``selectors.snapshot_withheld``)."""

    columns = serializers.ListField(
        child=serializers.DictField(), help_text="[{id, label, higher_is_better, format, per_slice}]"
    )
    rows = serializers.SerializerMethodField(
        help_text="[{rank, unranked_reason, is_reference, model, model_slug, run, submission, values: {column id: "
        "[value, ci_low, "
        "ci_high, n]}, dataset_version, dataset_sha256, evaluator_version, judge, judge_prompt_version, flags}], less "
        "the "
        "withheld rows (ranks stay as frozen)"
    )
    rows_frozen = serializers.SerializerMethodField(help_text="how many rows were frozen, withheld ones included")
    withheld = serializers.SerializerMethodField(
        help_text="why rows are missing: work made private or removed since it was frozen"
    )
    citation = serializers.SerializerMethodField()
    downloads = serializers.SerializerMethodField()

    def _withheld(self) -> selectors.Withheld:
        withheld = self.context["withheld"]
        assert isinstance(withheld, selectors.Withheld)
        return withheld

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_rows(self, snapshot: Snapshot) -> list[dict[str, Any]]:
        return self._withheld().shown(snapshot.rows)

    def get_rows_frozen(self, snapshot: Snapshot) -> int:
        return len(snapshot.rows)

    @extend_schema_field(WithheldNoteSerializer(many=True))
    def get_withheld(self, snapshot: Snapshot) -> list[dict[str, Any]]:
        return list(WithheldNoteSerializer(self._withheld().notes, many=True).data)

    @extend_schema_field(CitationSerializer)
    def get_citation(self, snapshot: Snapshot) -> dict[str, str]:
        return CitationSerializer(selectors.snapshot_citation(snapshot, self.context.get("request"))).data

    @extend_schema_field(DownloadsSerializer)
    def get_downloads(self, snapshot: Snapshot) -> dict[str, str | None]:
        """Addresses of the downloads; with rows withheld they serve a copy without them."""

        def address(fmt: str) -> str:
            return site_address(
                reverse("snapshot-download", args=[snapshot.benchmark.slug, snapshot.pk, fmt]),
                self.context.get("request"),
            )

        return {
            "csv": address("csv"),
            "json": address("json"),
            "parquet": address("parquet") if snapshot.parquet_sha256 else None,
        }


class ChangelogEntrySerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    kind = serializers.ChoiceField(choices=ChangeKind.choices)
    text = serializers.CharField()
    model = serializers.SerializerMethodField()
    dataset_version = serializers.SerializerMethodField()
    headline = serializers.ListField(
        child=serializers.FloatField(allow_null=True), allow_null=True, help_text="[value, ci_low, ci_high, n]"
    )
    previous_headline = serializers.ListField(child=serializers.FloatField(allow_null=True), allow_null=True)
    snapshot = serializers.IntegerField(source="snapshot_id", allow_null=True)

    @extend_schema_field(serializers.CharField(allow_null=True, help_text="the model's slug"))
    def get_model(self, entry: ChangelogEntry) -> str | None:
        return entry.model.slug if entry.model else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_dataset_version(self, entry: ChangelogEntry) -> str | None:
        return entry.dataset_version.tag if entry.dataset_version else None


def _board(slug: str) -> Benchmark:
    return get_object_or_404(Benchmark, slug=slug)


class SnapshotListView(APIView):
    @extend_schema(responses=SnapshotSummarySerializer(many=True), operation_id="benchmarks_snapshots_list")
    def get(self, request: Request, slug: str) -> Response:
        """A board's snapshots, newest first: permanent address, reason, dataset version and digests."""
        snapshots = selectors.snapshots_of(benchmark=_board(slug)).select_related("benchmark", "dataset_version")
        return Response(SnapshotSummarySerializer(snapshots, many=True, context={"request": request}).data)


class SnapshotDetailView(APIView):
    @extend_schema(responses=SnapshotSerializer, operation_id="benchmarks_snapshots_retrieve")
    def get(self, request: Request, slug: str, pk: int) -> Response:
        """A frozen board: every row with its values on every slice and what produced it, the citation and the
        downloads."""
        snapshot = selectors.snapshot_get(benchmark=_board(slug), snapshot_id=pk, files=False)
        if snapshot is None:
            raise Http404
        context = {"request": request, "withheld": selectors.snapshot_withheld(snapshot)}
        return Response(SnapshotSerializer(snapshot, context=context).data)


class ChangelogView(APIView):
    @extend_schema(responses=ChangelogEntrySerializer(many=True), operation_id="benchmarks_changelog_list")
    def get(self, request: Request, slug: str) -> Response:
        """A board's public changelog, newest first (the latest 200 entries); private models never appear."""
        entries = selectors.changelog_of(benchmark=_board(slug), user=request.user, limit=200)
        return Response(ChangelogEntrySerializer(entries, many=True).data)
