"""The site's own pages, above the apps: the home page, the operations status, the error pages, the
favicon and the health check. Each app's pages are in its own views module."""

from __future__ import annotations

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from leaderboard import ops
from leaderboard.boards import leaders
from leaderboard.catalog.models import Benchmark
from leaderboard.http import HtmxRequest
from leaderboard.pagecache import cached_page


@cached_page
def home(request: HtmxRequest) -> HttpResponse:
    benchmarks = list(Benchmark.objects.all())
    return render(request, "web/home.html", {"benchmarks": benchmarks, "leaders": leaders.home_leaders()})


@staff_member_required
def ops_status(request: HtmxRequest) -> HttpResponse:
    """For operators: workers per queue, queue lengths, runs and jobs in progress, the last beat."""
    return render(request, "web/ops_status.html", {"status": ops.ops_status()})


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404: a problem body for API clients (the schema documents it), a page with a way on for people."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """500: a problem body for API clients; a static page (nothing that could fail again) for people."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "A server error occurred; it has been logged. Try again later."}, status=500)
    return HttpResponse(
        (settings.BASE_DIR / "templates" / "500.html").read_bytes(), status=500, content_type="text/html"
    )


def favicon(request: HtmxRequest) -> HttpResponse:
    """The site's icon at the address browsers ask for first (/favicon.ico; pages link it too), cached for a day."""
    response = HttpResponse((settings.BASE_DIR / "static" / "favicon.ico").read_bytes(), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response


def healthz(request: HtmxRequest) -> HttpResponse:
    """Liveness check for load balancers; also the trivial baseline view of the benchmarks."""
    return JsonResponse({"ok": True})
