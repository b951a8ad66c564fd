"""History pages: a snapshot (its permanent URL, citation, digests and rows, less any withheld), its
downloads (the bytes stored when it was frozen, or with rows withheld a redacted rendering; the sha256 of
what is served and of what was stored in headers), a board's snapshot list and its changelog. Thin: each
view calls a selector and renders."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from leaderboard.catalog.models import Benchmark
from leaderboard.history import selectors
from leaderboard.history.exports import value_columns
from leaderboard.pagecache import cached_page

#: frozen rows a page of a snapshot shows (a board at scale froze a thousand; each row is a table row of every column)
SNAPSHOT_PAGE = 100
#: how long a browser or proxy may keep a download (a takedown reaches cached copies within this)
DOWNLOAD_MAX_AGE = 600
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "parquet": "application/vnd.apache.parquet",
}


@cached_page
def snapshot_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    snapshot = selectors.snapshot_get(benchmark=benchmark, snapshot_id=pk, files=False)
    if snapshot is None:
        raise Http404("no such snapshot of this board")
    withheld = selectors.snapshot_withheld(snapshot)
    rows = withheld.shown(snapshot.rows)
    page = Paginator(rows, SNAPSHOT_PAGE).get_page(request.GET.get("page"))  # every row is in the downloads
    return render(
        request,
        "history/snapshot.html",
        {
            "benchmark": benchmark,
            "snapshot": snapshot,
            "rows": page.object_list,
            "page": page,
            "withheld": withheld,
            "citation": selectors.snapshot_citation(snapshot, request),
            "url": selectors.snapshot_url(snapshot, request),
            "slices": [
                c for c in value_columns(snapshot.columns, rows) if c not in {col["id"] for col in snapshot.columns}
            ],
            "latest": selectors.snapshot_latest(benchmark=benchmark),
            "corrections": list(snapshot.corrections.order_by("frozen_at")),
        },
    )


def snapshot_download(request: HttpRequest, slug: str, pk: int, fmt: str) -> HttpResponse:
    snapshot = selectors.snapshot_get(benchmark=get_object_or_404(Benchmark, slug=slug), snapshot_id=pk)
    found = selectors.snapshot_download(snapshot=snapshot, fmt=fmt) if snapshot is not None else None
    if found is None:
        raise Http404("no such download")
    response = HttpResponse(found.data, content_type=CONTENT_TYPES[fmt])
    name = f"{slug}-snapshot-{pk}{'-redacted' if found.redacted else ''}.{fmt}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Content-SHA256"] = found.sha256
    response["X-Stored-SHA256"] = found.stored_sha256
    if found.redacted:
        response["X-Withheld"] = "; ".join(str(note) for note in found.withheld.notes)
    # not "immutable": a row withheld later must leave every copy served from now on
    response["Cache-Control"] = f"public, max-age={DOWNLOAD_MAX_AGE}"
    return response


@cached_page
def snapshot_list(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    snapshots = selectors.snapshots_of(benchmark=benchmark).select_related("dataset_version")
    return render(request, "history/snapshots.html", {"benchmark": benchmark, "snapshots": snapshots})


@cached_page
def changelog(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    return render(
        request,
        "history/changelog.html",
        {"benchmark": benchmark, "entries": selectors.changelog_of(benchmark=benchmark, user=request.user, limit=500)},
    )
