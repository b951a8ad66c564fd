"""The catalog's pages: a benchmark's example predictions as a download (its requests file is the submit
guide's: ``leaderboard.runs.views``; how its judge is validated is model hosting's)."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404

from leaderboard.catalog import selectors
from leaderboard.catalog.models import Benchmark
from leaderboard.http import HtmxRequest


def example_predictions(request: HtmxRequest, slug: str) -> HttpResponse:
    """A ready-to-submit predictions file for the benchmark's current dataset version."""
    benchmark = get_object_or_404(Benchmark, slug=slug)
    data = selectors.example_predictions(benchmark=benchmark)
    if data is None:
        raise Http404("This benchmark has no example predictions.")
    response = HttpResponse(data, content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="{slug}-example-predictions.jsonl"'
    return response
