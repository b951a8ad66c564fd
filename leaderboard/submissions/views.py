"""The pages of submissions, runs and leaderboards: a board with its chart and downloads, the models
index, a model's page and submit form, the comparison, a submission, a run's status, items and media,
its cancel and re-run, the submit page, the queue and the notifications."""
from __future__ import annotations

import csv

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from evaluators.core.modality import MODALITIES
from leaderboard.accounts import policy
from leaderboard.catalog.labels import labels_for
from leaderboard.catalog.media import dataset_medium
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.catalog.reported import reported_figures
from leaderboard.http import HtmxRequest, SignedInRequest
from leaderboard.pagecache import cached_page
from leaderboard.spreadsheet import spreadsheet_safe
from leaderboard.submissions import guide, leaders, selectors, services
from leaderboard.submissions import queue as work_queue
from leaderboard.submissions.compare import compare_models
from leaderboard.submissions.costs import COST_COLUMNS
from leaderboard.submissions.forms import ModelSubmitForm, PredictionsSubmissionForm
from leaderboard.submissions.notifications import notifications_for, notifications_mark_read
from leaderboard.submissions.profiles import model_profile
from leaderboard.submissions.serializers import LeaderboardSerializer, ModelsIndexSerializer


#: models a page of the models index shows (sorted and filtered over all of them first)
MODELS_PAGE = 100


@cached_page
def models_index(request: HtmxRequest) -> HttpResponse:
    """Every public model with its headline on each board and in the arena (``?format=json``: the API's JSON)."""
    try:
        query, problem = leaders.index_query(request.GET), ""
    except leaders.IndexQueryError as exc:
        if request.GET.get("format") == "json":
            return JsonResponse({"detail": str(exc), "field": exc.field}, status=400)
        query, problem = leaders.IndexQuery(), str(exc)
    index = leaders.models_index(query)
    if request.GET.get("format") == "json":
        return JsonResponse(ModelsIndexSerializer(index).data)
    page = Paginator(index.rows, MODELS_PAGE).get_page(request.GET.get("page"))  # a thousand models' rows are not rendered at once
    return render(request, "web/models.html", {"index": index, "page": page, "query_without_page": _query_without(request, "page"),
                                               "problem": problem, "sources": Model.SOURCE_CHOICES, "modalities": MODALITIES},
                  status=400 if problem else 200)


@cached_page
def benchmark_detail(request: HtmxRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    if benchmark.kind == Benchmark.KIND_ARENA:  # an arena has no evaluator: its board is the arena's own
        return redirect("arena-leaderboard")
    fmt = request.GET.get("format")
    problem = ""
    try:
        query = selectors.leaderboard_query(benchmark=benchmark, params=request.GET)
    except selectors.QueryError as exc:
        query, problem = selectors.LeaderboardQuery(), str(exc)
        if fmt:
            return JsonResponse({"detail": problem, "field": exc.field}, status=400)
    board = selectors.leaderboard(benchmark=benchmark, user=request.user, sort=query.sort, slice_filter=query.slice_filter,
                                  page=query.page, page_size=100_000 if fmt else selectors.PAGE_SIZE, window=query.window)
    if fmt in {"csv", "json"}:
        return _download(board, fmt)
    date_key = selectors.date_slice_of(benchmark)
    date_range = selectors.dataset_date_range(dataset=board.dataset, date_key=date_key) if date_key and board.dataset else None
    context = {"benchmark": benchmark, "board": board, "chart": _chart(board), "date_range": date_range, "problem": problem,
               "labels": labels_for(benchmark),
               "query": _query_without(request, "sort", "page"), "method": selectors.method_notes_of(benchmark),
               "card": selectors.method_card_of(benchmark),
               "show_costs": request.GET.get("costs") == "1", "cost_columns": COST_COLUMNS,
               "query_without_costs": _query_without(request, "costs"),
               "reported": reported_figures(benchmark.slug, benchmark.metric_columns)}
    template = "web/benchmark.html#leaderboard" if request.htmx else "web/benchmark.html"
    return render(request, template, context, status=400 if problem else 200)


def _query_without(request: HtmxRequest, *names: str) -> str:
    """The current query string minus some parameters, for links that change only those."""
    query = request.GET.copy()
    for name in names:
        query.pop(name, None)
    return query.urlencode()


def _chart(board: selectors.Leaderboard) -> list[dict]:
    """Per-slice bars for the chart under the table: one group per model, one bar per slice column."""
    per_slice = [c for c in board.columns if c.get("per_slice")]
    shown = [(c, row.cells[c["id"]].value) for row in board.rows[:8] for c in per_slice if c["id"] in row.cells]
    # a share is drawn against 100%; a number (an edit distance, BLEU 0-100) against the largest shown, at least 100
    full = max([100.0] + [value for c, value in shown if c.get("format", "percent") != "percent"])
    groups = []
    for row in board.rows[:8]:
        bars = [_bar(c, row.cells[c["id"]].value, full) for c in per_slice if c["id"] in row.cells]
        if bars:
            groups.append({"model": row.model.name, "bars": bars})
    return groups


def _bar(column: dict, value: float, full: float) -> dict:
    label = column.get("title") or column["label"]
    if column.get("format", "percent") != "percent":  # a number or a count
        return {"label": label, "width": round(100 * max(0.0, value) / full, 1), "text": f"{value:.1f}"}
    return {"label": label, "width": round(100 * max(0.0, min(1.0, value)), 1), "text": f"{100 * value:.0f}%"}


def _download(board: selectors.Leaderboard, fmt: str) -> HttpResponse:
    """The leaderboard as the API serializes it (JSON), or its rows flattened to one line each (CSV)."""
    data = LeaderboardSerializer(board).data
    name = f"{board.benchmark.slug}-leaderboard"
    if fmt == "json":
        response: HttpResponse = JsonResponse(data, json_dumps_params={"indent": 1})
    else:
        response = HttpResponse(content_type="text/csv")
        columns = [c["id"] for c in board.columns]
        fields = ["rank", "model", "model_slug", "run", "dataset_version", "evaluator_version", "judge", "unranked_reason",
                  "ranked"]
        writer = csv.writer(response)
        writer.writerow(fields + [f"{column}{part}" for column in columns for part in ("", ":ci_low", ":ci_high", ":n")])
        for row in data["rows"]:
            cells = [row["scores"].get(column, {}) for column in columns]
            writer.writerow([spreadsheet_safe(data["dataset_version"] if f == "dataset_version" else row[f]) for f in fields]
                            + [cell.get(part) for cell in cells for part in ("value", "ci_low", "ci_high", "n")])
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response


def model_detail(request: HtmxRequest, slug: str) -> HttpResponse:
    model = get_object_or_404(selectors.models_visible(user=request.user).select_related("weights_upload"), slug=slug)
    can_manage = policy.can_manage(request.user, model)
    submit_form = ModelSubmitForm(initial={"generation_settings": model.generation_defaults}) if can_manage and model.preflight_status == model.PREFLIGHT_PASSED else None
    return render(request, "web/model.html", {"model": model, "profile": model_profile(model=model, user=request.user),
                                              "can_manage": can_manage, "submit_form": submit_form})


@require_POST
@login_required
def model_submit(request: SignedInRequest, slug: str) -> HttpResponse:
    model = get_object_or_404(selectors.models_visible(user=request.user), slug=slug)
    form = ModelSubmitForm(request.POST)
    if form.is_valid():
        try:
            submission = services.submission_create_for_model(
                owner=request.user, model=model, benchmarks=list(form.cleaned_data["benchmarks"]),
                generation_settings=form.cleaned_data["generation_settings"] or {}, is_public=form.cleaned_data["is_public"],
                note=form.cleaned_data["note"])
        except services.SubmissionRefused as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, "Accepted. A worker will generate the predictions, then score them; this page updates as it goes.")
            return redirect("submission", pk=submission.pk)
    else:
        messages.error(request, "; ".join(f"{k}: {' '.join(str(e) for e in v)}" for k, v in form.errors.items()))
    return redirect("model", slug=model.slug)


def submission_detail(request: HtmxRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(selectors.submissions_visible(user=request.user), pk=pk)
    runs = list(submission.runs.select_related("benchmark", "dataset_version"))
    return render(request, "web/submission.html", {
        "submission": submission, "runs": [(run, selectors.run_progress(run=run)) for run in runs],
        "can_manage": policy.can_manage(request.user, submission)})


def run_status(request: HtmxRequest, pk: int) -> HttpResponse:
    """The progress fragment; it re-polls itself while the run is unfinished."""
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    can_manage = policy.can_manage(request.user, run)
    context = {"run": run, "progress": selectors.run_progress(run=run), "can_manage": can_manage}
    if request.htmx:
        return render(request, "web/submission.html#run-status", context)
    return redirect("submission", pk=run.submission_id)


def run_items(request: HtmxRequest, pk: int) -> HttpResponse:
    """A run's item results, 50 a page, each with the work behind its scores and the items that belong with
    it (Video NIAH's other hop); ``?failed=1``: only those without full marks."""
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    failed_only = request.GET.get("failed") == "1"
    page = Paginator(selectors.run_item_results(run=run, failed_only=failed_only), 50).get_page(request.GET.get("page"))
    results = list(page)
    companions = selectors.item_companions(run=run, item_ids=[r.item_id for r in results])
    template = "web/run_items.html#items" if request.htmx else "web/run_items.html"
    return render(request, template, {"run": run, "page": page, "failed_only": failed_only, "labels": labels_for(run.benchmark),
                                      "rows": [(r, companions[r.item_id]) for r in results]})


def compare(request: HtmxRequest) -> HttpResponse:
    """Two models side by side (``?a=slug&b=slug``); without both, the form to choose them."""
    visible = selectors.models_visible(user=request.user).order_by("name")
    a = visible.filter(slug=request.GET.get("a", "")).first()
    b = visible.filter(slug=request.GET.get("b", "")).first()
    result = compare_models(a=a, b=b, user=request.user) if a is not None and b is not None and a != b else None
    return render(request, "web/compare.html", {"models": visible.only("slug", "name")[:500], "a": a, "b": b, "result": result})


@login_required
def notifications(request: SignedInRequest) -> HttpResponse:
    """The user's latest notifications (runs finished or failed); viewing them marks them read."""
    found = notifications_for(user=request.user)
    unread = {n.pk for n in found if n.read_at is None}
    notifications_mark_read(user=request.user)
    return render(request, "web/notifications.html", {"notifications": found, "unread": unread})


def run_media(request: HtmxRequest, pk: int, key: str) -> HttpResponse:
    """An image of the run's dataset version (the per-item page shows what the model saw); only keys
    stored under that version, for those who may see the run."""
    run = get_object_or_404(selectors.runs_visible(user=request.user).select_related("dataset_version"), pk=pk)
    try:
        data, content_type = dataset_medium(run.dataset_version, key)
    except LookupError:
        raise Http404("no such image in this run's dataset")
    response = HttpResponse(data, content_type=content_type)
    response["Cache-Control"] = "private, max-age=31536000, immutable"  # content-addressed: never changes
    return response


@require_POST
@login_required
def run_cancel(request: SignedInRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    try:
        changed = services.run_cancel(run=run, user=request.user)
    except PermissionError as exc:
        raise Http404(str(exc))
    messages.info(request, "Run cancelled." if changed else "This run had already finished.")
    return redirect("submission", pk=run.submission_id)


@require_POST
@login_required
def run_rerun(request: SignedInRequest, pk: int) -> HttpResponse:
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
def submit(request: SignedInRequest) -> HttpResponse:
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
    # a refused upload re-renders the form with its problems as a 400, so that clients and tools see the refusal
    return render(request, "web/submit.html", {"form": form, "problems": problems,
                                               "quota_left": services.quota_remaining(user=request.user),
                                               "runnable_models": selectors.models_runnable(user=request.user),
                                               "guides": guide.guides(), "selected": str(form["benchmark"].value() or "")},
                  status=400 if request.method == "POST" else 200)


def queue(request: HtmxRequest) -> HttpResponse:
    """What runs, waits and failed lately, private work unnamed (``?format=json``: the API's JSON)."""
    found = work_queue.public_queue(user=request.user)
    if request.GET.get("format") == "json":
        return JsonResponse(found.to_dict())
    return render(request, "web/queue.html", {"queue": found})
