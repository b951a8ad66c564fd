"""The pages of the leaderboards: a board with its chart and downloads, the models index, a model's page
(its profile and, for its owner, the submit form), two models compared, and how far each board's ranking
agrees with the arena's (``/arena/agreement/``)."""

from __future__ import annotations

import csv

from django.core.paginator import Paginator
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render

from evaluators.core.modality import MODALITIES
from leaderboard.accounts import policy
from leaderboard.boards import leaders, selectors
from leaderboard.boards.agreement import published_agreement
from leaderboard.boards.compare import compare_models
from leaderboard.boards.profiles import model_profile
from leaderboard.boards.serializers import LeaderboardSerializer, ModelsIndexSerializer
from leaderboard.catalog.labels import labels_for
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.catalog.reported import reported_figures
from leaderboard.catalog.selectors import models_visible
from leaderboard.http import HtmxRequest
from leaderboard.pagecache import cached_page
from leaderboard.runs.costs import COST_COLUMNS
from leaderboard.runs.forms import ModelSubmitForm
from leaderboard.spreadsheet import spreadsheet_safe

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
    page = Paginator(index.rows, MODELS_PAGE).get_page(
        request.GET.get("page")
    )  # a thousand models' rows are not rendered at once
    return render(
        request,
        "web/models.html",
        {
            "index": index,
            "page": page,
            "query_without_page": _query_without(request, "page"),
            "problem": problem,
            "sources": Model.SOURCE_CHOICES,
            "modalities": MODALITIES,
        },
        status=400 if problem else 200,
    )


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
    board = selectors.leaderboard(
        benchmark=benchmark,
        user=request.user,
        sort=query.sort,
        slice_filter=query.slice_filter,
        page=query.page,
        page_size=100_000 if fmt else selectors.PAGE_SIZE,
        window=query.window,
    )
    if fmt in {"csv", "json"}:
        return _download(board, fmt)
    date_key = selectors.date_slice_of(benchmark)
    date_range = (
        selectors.dataset_date_range(dataset=board.dataset, date_key=date_key) if date_key and board.dataset else None
    )
    context = {
        "benchmark": benchmark,
        "board": board,
        "chart": _chart(board),
        "date_range": date_range,
        "problem": problem,
        "labels": labels_for(benchmark),
        "query": _query_without(request, "sort", "page"),
        "method": selectors.method_notes_of(benchmark),
        "card": selectors.method_card_of(benchmark),
        "show_costs": request.GET.get("costs") == "1",
        "cost_columns": COST_COLUMNS,
        "query_without_costs": _query_without(request, "costs"),
        "reported": reported_figures(benchmark.slug, benchmark.metric_columns),
    }
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
        fields = [
            "rank",
            "model",
            "model_slug",
            "run",
            "dataset_version",
            "evaluator_version",
            "judge",
            "unranked_reason",
            "ranked",
        ]
        writer = csv.writer(response)
        writer.writerow(
            fields + [f"{column}{part}" for column in columns for part in ("", ":ci_low", ":ci_high", ":n")]
        )
        for row in data["rows"]:
            cells = [row["scores"].get(column, {}) for column in columns]
            writer.writerow(
                [spreadsheet_safe(data["dataset_version"] if f == "dataset_version" else row[f]) for f in fields]
                + [cell.get(part) for cell in cells for part in ("value", "ci_low", "ci_high", "n")]
            )
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response


def model_detail(request: HtmxRequest, slug: str) -> HttpResponse:
    model = get_object_or_404(models_visible(user=request.user).select_related("weights_upload"), slug=slug)
    can_manage = policy.can_manage(request.user, model)
    submit_form = (
        ModelSubmitForm(initial={"generation_settings": model.generation_defaults})
        if can_manage and model.preflight_status == model.PREFLIGHT_PASSED
        else None
    )
    return render(
        request,
        "web/model.html",
        {
            "model": model,
            "profile": model_profile(model=model, user=request.user),
            "can_manage": can_manage,
            "submit_form": submit_form,
        },
    )


def compare(request: HtmxRequest) -> HttpResponse:
    """Two models side by side (``?a=slug&b=slug``); without both, the form to choose them."""
    visible = models_visible(user=request.user).order_by("name")
    a = visible.filter(slug=request.GET.get("a", "")).first()
    b = visible.filter(slug=request.GET.get("b", "")).first()
    result = compare_models(a=a, b=b, user=request.user) if a is not None and b is not None and a != b else None
    return render(
        request, "web/compare.html", {"models": visible.only("slug", "name")[:500], "a": a, "b": b, "result": result}
    )


def agreement_page(request: HtmxRequest) -> HttpResponse:
    """How far each static board's ranking agrees with people's (``leaderboard.boards.agreement``)."""
    return render(request, "arena/agreement.html", {"report": published_agreement()})
