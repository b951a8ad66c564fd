"""Page views: one per URL; each renders the whole page, or only its partial for htmx requests."""
from __future__ import annotations

import csv
import datetime as dt

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from leaderboard.catalog.models import Benchmark
from leaderboard.submissions import selectors, services
from leaderboard.web.forms import PredictionsSubmissionForm


def home(request: HttpRequest) -> HttpResponse:
    benchmarks = list(Benchmark.objects.all())
    return render(request, "web/home.html", {"benchmarks": benchmarks})


def benchmark_detail(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    slice_filter = _slice_filter(request, benchmark)
    fmt = request.GET.get("format")
    date_key = selectors.date_slice_of(benchmark)
    window = _window(request) if date_key else None
    board = selectors.leaderboard(benchmark=benchmark, user=request.user, sort=request.GET.get("sort") or None,
                                  slice_filter=slice_filter, page=_int(request.GET.get("page"), 1),
                                  page_size=100_000 if fmt else selectors.PAGE_SIZE, window=window)
    if fmt in {"csv", "json"}:
        return _download(board, fmt)
    date_range = selectors.dataset_date_range(dataset=board.dataset, date_key=date_key) if date_key and board.dataset else None
    context = {"benchmark": benchmark, "board": board, "chart": _chart(board), "date_range": date_range,
               "query": _query_without(request, "sort", "page")}
    template = "web/benchmark.html#leaderboard" if request.htmx else "web/benchmark.html"
    return render(request, template, context)


def _int(value: str | None, default: int) -> int:
    try:
        return int(value or default)
    except ValueError:
        return default


def _window(request: HttpRequest) -> selectors.DateWindow | None:
    """The date window from ?from=YYYY-MM-DD&to=YYYY-MM-DD (either may be left out)."""
    bounds = []
    for name in ("from", "to"):
        try:
            bounds.append(dt.date.fromisoformat(request.GET[name]) if request.GET.get(name) else None)
        except ValueError:
            bounds.append(None)
    return selectors.DateWindow(*bounds) if any(bounds) else None


def _query_without(request: HttpRequest, *names: str) -> str:
    """The current query string minus some parameters, for links that change only those."""
    query = request.GET.copy()
    for name in names:
        query.pop(name, None)
    return query.urlencode()


def _slice_filter(request: HttpRequest, benchmark: Benchmark) -> str:
    for dim in benchmark.slice_dimensions:
        value = request.GET.get(dim["key"], "")
        if value and value in dim["values"]:
            return f"{dim['key']}={value}"
    return ""


def _chart(board: selectors.Leaderboard) -> list[dict]:
    """Per-slice bars for the chart under the table: one group per model, one bar per slice column."""
    per_slice = [c for c in board.columns if c.get("per_slice")]
    groups = []
    for row in board.rows[:8]:
        bars = [{"label": c["label"], "value": row.cells[c["id"]].value} for c in per_slice if c["id"] in row.cells]
        if bars:
            groups.append({"model": row.model.name, "bars": bars})
    return groups


def _download(board: selectors.Leaderboard, fmt: str) -> HttpResponse:
    records = []
    for row in board.rows:
        record = {"rank": row.rank, "model": row.model.name, "run": row.run.pk, "dataset_version": board.dataset.tag if board.dataset else "",
                  "evaluator_version": row.run.evaluator_version, "unranked_reason": row.unranked_reason}
        for col in board.columns:
            cell = row.cells.get(col["id"])
            record[col["id"]] = cell.value if cell else None
            record[f"{col['id']}:ci_low"] = cell.ci_low if cell else None
            record[f"{col['id']}:ci_high"] = cell.ci_high if cell else None
        records.append(record)
    name = f"{board.benchmark.slug}-leaderboard"
    if fmt == "json":
        response = JsonResponse({"benchmark": board.benchmark.slug, "rows": records}, json_dumps_params={"indent": 1})
    else:
        response = HttpResponse(content_type="text/csv")
        if records:
            writer = csv.DictWriter(response, fieldnames=list(records[0]))
            writer.writeheader()
            writer.writerows(records)
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response


def model_detail(request: HttpRequest, slug: str) -> HttpResponse:
    model = get_object_or_404(selectors.models_visible(user=request.user), slug=slug)
    return render(request, "web/model.html", {"model": model, "results": selectors.model_scores(model=model, user=request.user)})


def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(selectors.submissions_visible(user=request.user), pk=pk)
    runs = list(submission.runs.select_related("benchmark", "dataset_version"))
    return render(request, "web/submission.html", {
        "submission": submission, "runs": [(run, selectors.run_progress(run=run)) for run in runs],
        "can_manage": request.user.is_staff or submission.owner_id == getattr(request.user, "pk", None)})


def run_status(request: HttpRequest, pk: int) -> HttpResponse:
    """The progress fragment; it re-polls itself while the run is unfinished."""
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    can_manage = request.user.is_staff or run.submission.owner_id == getattr(request.user, "pk", None)
    context = {"run": run, "progress": selectors.run_progress(run=run), "can_manage": can_manage}
    if request.htmx:
        return render(request, "web/submission.html#run-status", context)
    return redirect("submission", pk=run.submission_id)


def run_items(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    failed_only = request.GET.get("failed") == "1"
    page = Paginator(selectors.run_item_results(run=run, failed_only=failed_only), 50).get_page(request.GET.get("page"))
    template = "web/run_items.html#items" if request.htmx else "web/run_items.html"
    return render(request, template, {"run": run, "page": page, "failed_only": failed_only})


@require_POST
@login_required
def run_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    try:
        changed = services.run_cancel(run=run, user=request.user)
    except PermissionError as exc:
        raise Http404(str(exc))
    messages.info(request, "Run cancelled." if changed else "This run had already finished.")
    return redirect("submission", pk=run.submission_id)


@require_POST
@login_required
def run_rerun(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    try:
        services.run_rerun(run=run, user=request.user)
    except PermissionError as exc:
        raise Http404(str(exc))
    except services.SubmissionRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Re-run queued.")
    return redirect("submission", pk=run.submission_id)


@login_required
@require_http_methods(["GET", "POST"])
def submit(request: HttpRequest) -> HttpResponse:
    form = PredictionsSubmissionForm(request.POST or None, request.FILES or None,
                                     initial={"benchmark": request.GET.get("benchmark")})
    problems: list = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["predictions"]
        try:
            submission = services.submission_create_from_predictions(
                owner=request.user, benchmark=form.cleaned_data["benchmark"], model_name=form.cleaned_data["model_name"],
                data=upload.read(), is_public=form.cleaned_data["is_public"], note=form.cleaned_data["note"],
                release_date=form.cleaned_data["release_date"])
        except services.SubmissionRefused as exc:
            form.add_error(exc.field if exc.field in form.fields else None, str(exc) if not exc.problems else
                           f"{len(exc.problems)} problem(s) found; nothing was stored or queued. Fix them and upload again.")
            problems = exc.problems
        else:
            messages.success(request, "Accepted. Your run is queued; this page updates as it progresses.")
            return redirect("submission", pk=submission.pk)
    return render(request, "web/submit.html", {"form": form, "problems": problems,
                                               "quota_left": services.quota_remaining(user=request.user)})


def example_predictions(request: HttpRequest, slug: str) -> HttpResponse:
    """A ready-to-submit predictions file for the benchmark's current dataset version."""
    benchmark = get_object_or_404(Benchmark, slug=slug)
    data = selectors.example_predictions(benchmark=benchmark)
    if data is None:
        raise Http404("This benchmark has no example predictions.")
    response = HttpResponse(data, content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="{slug}-example-predictions.jsonl"'
    return response


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness check for load balancers; also the trivial baseline view of the benchmarks."""
    return JsonResponse({"ok": True})
