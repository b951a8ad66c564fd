"""The catalog's pages: a benchmark's items and example predictions as downloads, and how each judged
board's judge is validated."""
from __future__ import annotations

from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render

from evaluators.llm.validation import MARGIN
from evaluators.policon.validation import PASS_R
from leaderboard.catalog import selectors, validation
from leaderboard.catalog.models import Benchmark
from leaderboard.http import HtmxRequest
from leaderboard.pagecache import cached_page
from leaderboard.runs import guide


@cached_page
def judges(request: HtmxRequest) -> HttpResponse:
    """How a judged board's judge is validated, and where each board stands."""
    return render(request, "web/judges.html", {"boards": validation.judged_boards(), "margin": MARGIN, "pass_r": PASS_R,
                                               "not_validated": validation.NOT_VALIDATED})


def benchmark_items(request: HtmxRequest, slug: str) -> StreamingHttpResponse:
    """The current dataset version's requests as JSON lines, to run a text model offline (guide.item_requests)."""
    benchmark = get_object_or_404(Benchmark, slug=slug)
    if guide.guide_for(benchmark) is None:
        raise Http404("This board has no dataset yet.")
    response = StreamingHttpResponse(guide.item_requests(benchmark), content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="{slug}-requests.jsonl"'
    return response


def example_predictions(request: HtmxRequest, slug: str) -> HttpResponse:
    """A ready-to-submit predictions file for the benchmark's current dataset version."""
    benchmark = get_object_or_404(Benchmark, slug=slug)
    data = selectors.example_predictions(benchmark=benchmark)
    if data is None:
        raise Http404("This benchmark has no example predictions.")
    response = HttpResponse(data, content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="{slug}-example-predictions.jsonl"'
    return response
