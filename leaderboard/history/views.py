"""History pages: a snapshot (its permanent URL, citation, digests and rows), its downloads (the bytes
stored when it was frozen, with their sha256 in a header), a board's snapshot list and its changelog.
Thin: each view calls a selector and renders."""
from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from leaderboard.catalog.models import Benchmark
from leaderboard.history import selectors
from leaderboard.history.exports import value_columns
from leaderboard.pagecache import cached_page

CONTENT_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json", "parquet": "application/vnd.apache.parquet"}


@cached_page
def snapshot_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    snapshot = selectors.snapshot_get(benchmark=benchmark, snapshot_id=pk)
    if snapshot is None:
        raise Http404("no such snapshot of this board")
    return render(request, "history/snapshot.html", {
        "benchmark": benchmark, "snapshot": snapshot, "citation": selectors.snapshot_citation(snapshot),
        "url": selectors.snapshot_url(snapshot), "slices": [c for c in value_columns(snapshot.columns, snapshot.rows)
                                                             if c not in {col["id"] for col in snapshot.columns}],
        "latest": selectors.snapshot_latest(benchmark=benchmark), "corrections": list(snapshot.corrections.order_by("frozen_at"))})


def snapshot_download(request: HttpRequest, slug: str, pk: int, fmt: str) -> HttpResponse:
    snapshot = selectors.snapshot_get(benchmark=get_object_or_404(Benchmark, slug=slug), snapshot_id=pk)
    found = selectors.snapshot_download(snapshot=snapshot, fmt=fmt) if snapshot is not None else None
    if found is None:
        raise Http404("no such download")
    data, digest = found
    response = HttpResponse(data, content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{slug}-snapshot-{pk}.{fmt}"'
    response["X-Content-SHA256"] = digest
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


@cached_page
def snapshot_list(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    snapshots = selectors.snapshots_of(benchmark=benchmark).select_related("dataset_version")
    return render(request, "history/snapshots.html", {"benchmark": benchmark, "snapshots": snapshots})


@cached_page
def changelog(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    return render(request, "history/changelog.html", {"benchmark": benchmark,
                                                       "entries": selectors.changelog_of(benchmark=benchmark, user=request.user, limit=500)})
