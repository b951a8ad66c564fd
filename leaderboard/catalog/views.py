"""The catalog's pages: a benchmark's example predictions as a download, and how each judged board's judge
is validated (its requests file is the submit guide's: ``leaderboard.runs.views``)."""
from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render

from evaluators.llm.validation import MARGIN
from evaluators.policon.validation import PASS_R
from leaderboard.catalog import selectors, validation
from leaderboard.catalog.models import Benchmark
from leaderboard.http import HtmxRequest
from leaderboard.pagecache import cached_page


@cached_page
def judges(request: HtmxRequest) -> HttpResponse:
    """How a judged board's judge is validated, and where each board stands."""
    return render(request, "web/judges.html", {"boards": validation.judged_boards(), "margin": MARGIN, "pass_r": PASS_R,
                                               "not_validated": validation.NOT_VALIDATED})


def example_predictions(request: HtmxRequest, slug: str) -> HttpResponse:
    """A ready-to-submit predictions file for the benchmark's current dataset version."""
    benchmark = get_object_or_404(Benchmark, slug=slug)
    data = selectors.example_predictions(benchmark=benchmark)
    if data is None:
        raise Http404("This benchmark has no example predictions.")
    response = HttpResponse(data, content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="{slug}-example-predictions.jsonl"'
    return response
